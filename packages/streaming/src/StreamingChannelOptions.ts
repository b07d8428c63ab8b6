import type { SchedulerLike } from 'rxjs';
import { z } from 'zod';
import { configRules } from '@rxagents/core';
import { BackpressureStrategy, BackpressureStrategySchema } from './BackpressureStrategy';

const ID_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** A random 8-character channel id, for a channel created without one. @internal */
export function randomChannelId(): string {
  let id = '';
  for (let i = 0; i < 8; i++) id += ID_ALPHABET[Math.floor(Math.random() * ID_ALPHABET.length)];
  return id;
}

/**
 * Anything with zod's `safeParse`: the item schema of a channel.
 *
 * @remarks
 * Any zod 4 schema fits; items failing it are rejected at `emit` with {@link ChannelItemError}, and the
 * parsed output is what subscribers receive.
 *
 * @example
 * ```ts
 * import { z } from 'zod';
 * import { StreamingChannel, type ItemSchema } from '@rxagents/streaming';
 *
 * const Score: ItemSchema<number> = z.number().min(0).max(10);
 * const scores = StreamingChannel.builder<number>().schema(Score).build();
 * ```
 */
export interface ItemSchema<T> {
  safeParse(value: unknown): { success: true; data: T } | { success: false; error: { issues: readonly { message: string; path: readonly PropertyKey[] }[] } };
}

/**
 * The zod schema of {@link StreamingChannelOptions}; `StreamingChannel.create` and `build()` validate with it.
 *
 * @example
 * ```ts
 * import { StreamingChannelOptionsSchema } from '@rxagents/streaming';
 *
 * const options = StreamingChannelOptionsSchema.parse({ id: 'tokens' });
 * console.log(options.bufferSize, options.backpressure, options.offerTimeout); // 256 DROP_OLDEST 5000
 * ```
 */
export const StreamingChannelOptionsSchema = z.strictObject({
  id: configRules.id().default(randomChannelId),
  bufferSize: configRules.positiveInt().default(256),
  backpressure: BackpressureStrategySchema.default(BackpressureStrategy.DROP_OLDEST),
  offerTimeout: configRules.delayMs().default(5000),
  maxPendingOffers: configRules.nonNegativeInt().default(1024),
  strictPendingOffers: z.boolean({ error: 'must be a boolean' }).default(false),
  metricsSampleTime: configRules.timeoutMs().default(250),
  scheduler: configRules.scheduler().optional(),
  dispatchScheduler: configRules.scheduler().optional(),
  onLastUnsubscribe: z.enum(['keep', 'close', 'abort'], { error: "must be 'keep', 'close' or 'abort'" }).default('keep'),
  schema: z
    .custom<ItemSchema<unknown>>((value) => typeof value === 'object' && value !== null && typeof (value as ItemSchema<unknown>).safeParse === 'function', {
      error: 'must be a zod schema (with safeParse())',
    })
    .optional(),
});

/**
 * Options of {@link StreamingChannel.create} (the builder sets the same fields).
 *
 * @example
 * ```ts
 * import { asapScheduler } from 'rxjs';
 * import { BackpressureStrategy, StreamingChannel, type StreamingChannelOptions } from '@rxagents/streaming';
 *
 * const options: StreamingChannelOptions<string> = {
 *   id: 'analysis-stream',
 *   bufferSize: 100,
 *   backpressure: BackpressureStrategy.BLOCK,
 *   offerTimeout: 5_000,
 *   dispatchScheduler: asapScheduler,
 * };
 * const channel = StreamingChannel.create(options);
 * ```
 */
export interface StreamingChannelOptions<T = unknown> {
  /** The channel's id (not blank), used in metrics and errors. Default: a random 8-character id. */
  readonly id?: string;
  /** Capacity of the channel's buffer. Default 256. */
  readonly bufferSize?: number;
  /** What happens when the buffer is full. Default `DROP_OLDEST`. */
  readonly backpressure?: BackpressureStrategy;
  /** Under `BLOCK`: how long (ms, on `scheduler`) an offer may wait for space: 0 to `MAX_DELAY_MS`, or `Infinity` to wait for ever. Default 5000. */
  readonly offerTimeout?: number;
  /** Under `BLOCK`: how many offers may wait at once; more fail at once. Default 1024. */
  readonly maxPendingOffers?: number;
  /** Under `BLOCK`: past `maxPendingOffers`, throw {@link BufferOverflowError} instead of dropping. Default false. */
  readonly strictPendingOffers?: boolean;
  /** The shortest time (ms, on `scheduler`) between two `metrics$` emissions: above 0 and at most `MAX_DELAY_MS`, or `Infinity` for no sampling (the snapshot at subscription and the last one at the end). Default 250. */
  readonly metricsSampleTime?: number;
  /** The clock of `offerTimeout` and `metrics$`. Default `asyncScheduler`. */
  readonly scheduler?: SchedulerLike;
  /** When set, draining runs on this scheduler, in batches, instead of on the emitter's stack. */
  readonly dispatchScheduler?: SchedulerLike;
  /**
   * What happens when the last subscriber leaves (unsubscribes, leaves its `for await` loop, cancels its
   * stream, or fails on its own `ERROR` buffer) while the channel is open or completing: `keep` it open for the next subscriber (the
   * default), `close` it (as `close()`: the buffer is discarded and the producer's next `emit` throws
   * {@link ChannelClosedError}), or `abort`: close it and abort `channel.signal`, so that the producer
   * feeding it stops. A channel derived with `map` or `filter` counts as a subscriber only while it has one
   * of its own (at any depth), so a derived channel nobody reads does not keep the producer going.
   */
  readonly onLastUnsubscribe?: 'keep' | 'close' | 'abort';
  /** Items failing it are rejected at `emit` with {@link ChannelItemError}. */
  readonly schema?: ItemSchema<T>;
}
