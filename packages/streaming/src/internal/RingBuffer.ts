/** Slots allocated at once; a larger buffer grows (doubling) as it fills. */
const INITIAL_SLOTS = 1024;

/**
 * A bounded FIFO queue on a circular array: O(1) push, shift and drop-oldest.
 *
 * @remarks
 * Internal to `@rxagents/streaming`; channels and the `backpressure` operator queue items in it, so no
 * hot path ever calls `Array.prototype.shift`. Slots are cleared on removal so dropped items can be
 * garbage-collected. Up to 1,024 slots are allocated at once; a larger capacity is reached by doubling
 * the array as items arrive (amortised O(1)), so memory follows what the buffer holds, never its bound.
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
    this.#items = new Array<T | undefined>(Math.min(capacity, INITIAL_SLOTS));
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
    let items = this.#items;
    if (this.#size === items.length) items = this.#grow();
    let index = this.#head + this.#size;
    if (index >= items.length) index -= items.length;
    items[index] = item;
    this.#size += 1;
  }

  /** Removes and returns the oldest item; the caller checks {@link RingBuffer.size} first. */
  shift(): T {
    const items = this.#items;
    const head = this.#head;
    const item = items[head] as T;
    items[head] = undefined;
    this.#head = head + 1 === items.length ? 0 : head + 1;
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

  /** Doubles the slots (up to `capacity`), the oldest item first. */
  #grow(): (T | undefined)[] {
    const old = this.#items;
    const grown = new Array<T | undefined>(Math.min(this.capacity, old.length * 2));
    for (let i = 0; i < this.#size; i++) {
      let index = this.#head + i;
      if (index >= old.length) index -= old.length;
      grown[i] = old[index];
    }
    this.#items = grown;
    this.#head = 0;
    return grown;
  }
}
