import { BackpressureStrategy } from '../BackpressureStrategy';
import { type RingBuffer, ringPush, ringShift } from './RingBuffer';

/** What became of an item that found its buffer full. */
export const Overflow = {
  /** `DROP_OLDEST`: the oldest item was evicted and this one buffered. */
  Replaced: 0,
  /** `DROP_NEWEST`: this item is dropped. */
  DroppedNewest: 1,
  /** `ERROR`: this item is dropped and the owner fails with `BufferOverflowError`. */
  Failed: 2,
  /** `BLOCK`: the owner decides (park the item, or drop it when nothing can wait). */
  Block: 3,
} as const;

/** One of the {@link Overflow} outcomes. */
export type Overflow = (typeof Overflow)[keyof typeof Overflow];

/**
 * The one place where a backpressure strategy decides the fate of an item arriving at a full buffer
 * (the channel's buffer, a subscriber's own buffer, the `backpressure` operator's buffer).
 *
 * @remarks
 * Only `DROP_OLDEST` touches the buffer: it evicts the oldest item (handed to `evicted`, before the new
 * item is pushed) and buffers `item`. Counting drops, failing and parking stay with the caller, which
 * knows its own metrics and error path.
 *
 * @internal
 */
export function overflow<T>(strategy: BackpressureStrategy, buffer: RingBuffer<T>, item: T, evicted?: (item: T) => void): Overflow {
  switch (strategy) {
    case BackpressureStrategy.DROP_OLDEST: {
      const oldest = ringShift(buffer);
      evicted?.(oldest);
      ringPush(buffer, item);
      return Overflow.Replaced;
    }
    case BackpressureStrategy.DROP_NEWEST:
      return Overflow.DroppedNewest;
    case BackpressureStrategy.ERROR:
      return Overflow.Failed;
    default:
      return Overflow.Block;
  }
}
