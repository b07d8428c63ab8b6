import { z } from 'zod';

/**
 * What a bounded buffer does with a new item when it is full.
 *
 * @remarks
 * - `BLOCK`: the item waits ("parks") up to `offerTimeout` for space, at most `maxPendingOffers` at a
 *   time; when the time passes, or the cap is reached, it is dropped. JavaScript cannot block a caller,
 *   so a producer that wants to wait uses `offer()` (a Promise) or `offer$()` (an Observable).
 * - `DROP_OLDEST`: the oldest buffered item is dropped to make room (the default of channels).
 * - `DROP_NEWEST`: the new item is dropped.
 * - `ERROR`: a {@link BufferOverflowError} is thrown (channels) or sent downstream (the operator).
 *
 * @example
 * ```ts
 * import { BackpressureStrategy, StreamingChannel } from '@rxagents/streaming';
 *
 * const ticker = StreamingChannel.builder<number>().bufferSize(10).backpressure(BackpressureStrategy.DROP_NEWEST).build();
 * for (let i = 0; i < 12; i++) ticker.emit(i);
 * console.log(ticker.metrics().dropped); // 2 (nobody has subscribed yet, so items 10 and 11 found the buffer full)
 * ```
 */
export const BackpressureStrategy = {
  BLOCK: 'BLOCK',
  DROP_OLDEST: 'DROP_OLDEST',
  DROP_NEWEST: 'DROP_NEWEST',
  ERROR: 'ERROR',
} as const;

/** One of the {@link BackpressureStrategy} values. */
export type BackpressureStrategy = (typeof BackpressureStrategy)[keyof typeof BackpressureStrategy];

/**
 * The zod schema of a {@link BackpressureStrategy} value, for options schemas and JSON configuration.
 *
 * @example
 * ```ts
 * import { BackpressureStrategySchema } from '@rxagents/streaming';
 *
 * console.log(BackpressureStrategySchema.parse('BLOCK')); // BLOCK
 * ```
 */
export const BackpressureStrategySchema = z.enum(['BLOCK', 'DROP_OLDEST', 'DROP_NEWEST', 'ERROR'], {
  error: 'must be one of "BLOCK", "DROP_OLDEST", "DROP_NEWEST", "ERROR"',
});
