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
 * A plain record made by {@link createRingBuffer} and read by free functions rather than a class: V8
 * keeps an object literal's shape for as long as the function that creates it lives, whereas a class
 * instance's shape is collected with the last instance, and with it the code optimised for it.
 *
 * @internal
 */
export interface RingBuffer<T> {
  readonly capacity: number;
  /** How many items are queued. */
  size: number;
  head: number;
  slots: (T | undefined)[];
}

/** An empty buffer of `capacity` items. @internal */
export function createRingBuffer<T>(capacity: number): RingBuffer<T> {
  return { capacity, size: 0, head: 0, slots: new Array<T | undefined>(Math.min(capacity, INITIAL_SLOTS)) };
}

/** Whether no more items fit. @internal */
export function ringFull<T>(buffer: RingBuffer<T>): boolean {
  return buffer.size >= buffer.capacity;
}

/** Appends an item; the caller checks {@link ringFull} first. @internal */
export function ringPush<T>(buffer: RingBuffer<T>, item: T): void {
  let slots = buffer.slots;
  if (buffer.size === slots.length) slots = grow(buffer);
  let index = buffer.head + buffer.size;
  if (index >= slots.length) index -= slots.length;
  slots[index] = item;
  buffer.size += 1;
}

/** Removes and returns the oldest item; the caller checks `size` first. @internal */
export function ringShift<T>(buffer: RingBuffer<T>): T {
  const slots = buffer.slots;
  const head = buffer.head;
  const item = slots[head] as T;
  slots[head] = undefined;
  buffer.head = head + 1 === slots.length ? 0 : head + 1;
  buffer.size -= 1;
  return item;
}

/** Removes every item. @internal */
export function ringClear<T>(buffer: RingBuffer<T>): void {
  while (buffer.size > 0) ringShift(buffer);
}

/** Doubles the slots (up to `capacity`), the oldest item first. */
function grow<T>(buffer: RingBuffer<T>): (T | undefined)[] {
  const old = buffer.slots;
  const grown = new Array<T | undefined>(Math.min(buffer.capacity, old.length * 2));
  for (let i = 0; i < buffer.size; i++) {
    let index = buffer.head + i;
    if (index >= old.length) index -= old.length;
    grown[i] = old[index];
  }
  buffer.slots = grown;
  buffer.head = 0;
  return grown;
}
