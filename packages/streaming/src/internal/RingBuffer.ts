/**
 * A fixed-capacity FIFO queue on a circular array: O(1) push, shift and drop-oldest.
 *
 * @remarks
 * Internal to `@rxagents/streaming`; channels and the `backpressure` operator queue items in it, so no
 * hot path ever calls `Array.prototype.shift`. Slots are cleared on removal so dropped items can be
 * garbage-collected.
 *
 * @internal
 */
export class RingBuffer<T> {
  readonly capacity: number;
  #items: (T | undefined)[];
  #head = 0;
  #size = 0;

  constructor(capacity: number) {
    this.capacity = capacity;
    this.#items = new Array<T | undefined>(capacity);
  }

  /** How many items are queued. */
  get size(): number {
    return this.#size;
  }

  /** Whether no more items fit. */
  get full(): boolean {
    return this.#size >= this.capacity;
  }

  /** Appends an item; the caller checks {@link RingBuffer.full} first. */
  push(item: T): void {
    let index = this.#head + this.#size;
    if (index >= this.capacity) index -= this.capacity;
    this.#items[index] = item;
    this.#size += 1;
  }

  /** Removes and returns the oldest item; the caller checks {@link RingBuffer.size} first. */
  shift(): T {
    const head = this.#head;
    const item = this.#items[head] as T;
    this.#items[head] = undefined;
    this.#head = head + 1 === this.capacity ? 0 : head + 1;
    this.#size -= 1;
    return item;
  }

  /** The oldest item, without removing it. */
  peek(): T | undefined {
    return this.#size === 0 ? undefined : this.#items[this.#head];
  }

  /** Removes every item and returns them, oldest first. */
  clear(): T[] {
    const items: T[] = [];
    while (this.#size > 0) items.push(this.shift());
    return items;
  }
}
