import { configRules, MAX_DELAY_MS, parseConfig } from '@rxagents/core';
import { BackpressureStrategy, BackpressureStrategySchema, type ItemSchema } from '@rxagents/streaming';
import type { RedisClient } from './types/RedisClient';
import { asyncScheduler } from 'rxjs';
import { z } from 'zod';
import { checkClient } from './internal/checkClient';
import { hashTagId } from './internal/hashTagId';
import { RedisChannelCore } from './internal/RedisChannelCore';
import type { RedisChannel } from './types/RedisChannel';

/**
 * The options of {@link redisChannel}, checked by this schema (bad values fail with a `ConfigError`
 * naming the field).
 *
 * @example
 * ```ts
 * import { RedisChannelOptionsSchema } from '@rxagents/redis';
 *
 * const options = RedisChannelOptionsSchema.parse({});
 * console.log(options.bufferSize, options.backpressure, options.leaseMs); // 256 DROP_OLDEST 10000
 * ```
 */
export const RedisChannelOptionsSchema = z.strictObject({
  /** The prefix of every Redis key; the same in every process. */
  prefix: configRules.nonEmptyString().default('rxagents'),
  /** How many entries the slowest live consumer may be behind (the channel's buffer). */
  bufferSize: configRules.positiveInt().default(256),
  /** What an offer does when the slowest live consumer is `bufferSize` entries behind. */
  backpressure: BackpressureStrategySchema.default(BackpressureStrategy.DROP_OLDEST),
  /** Under `BLOCK`: how long (ms, on `scheduler`) an offer may wait for room, or `Infinity`. */
  offerTimeout: configRules.delayMs().default(5_000),
  /** Under `BLOCK`: how many offers of this process may wait at once besides the one being stored; more are dropped (or rejected, see `strictPendingOffers`). */
  maxPendingOffers: configRules.nonNegativeInt().default(1_024),
  /** Under `BLOCK`: past `maxPendingOffers`, reject with `BufferOverflowError` instead of dropping. */
  strictPendingOffers: z.boolean({ error: 'must be a boolean' }).default(false),
  /** Under `BLOCK`: how often a waiting offer reads the consumers' positions again, in ms (on `scheduler`). */
  pollMs: configRules.positiveInt(86_400_000).default(50),
  /** A consumer's lease, in ms (at least 30), renewed every third of it: a consumer that died stops counting this long after its last renewal. */
  leaseMs: configRules.positiveInt(86_400_000).min(30, 'must be at least 30').default(10_000),
  /** How long the channel's keys outlive their last write, in ms. */
  retentionMs: configRules.positiveInt(86_400_000 * 30).default(86_400_000),
  /** The shortest time (ms, on `scheduler`) between two `metrics$` emissions. */
  metricsSampleTime: configRules.positiveInt(MAX_DELAY_MS).default(250),
  /** The clock of `offerTimeout`, `pollMs`, leases and `metrics$`. */
  scheduler: configRules.scheduler().default(asyncScheduler),
  /** Items failing it are rejected at `offer`/`emit` and skipped (reported to `onError`) by consumers. */
  schema: z
    .custom<ItemSchema<unknown>>((value) => typeof value === 'object' && value !== null && typeof (value as ItemSchema<unknown>).safeParse === 'function', {
      error: 'must be a zod schema (with safeParse())',
    })
    .optional(),
});

/**
 * The options of {@link redisChannel}; every field is optional.
 *
 * @example
 * ```ts
 * import { BackpressureStrategy } from '@rxagents/streaming';
 * import type { RedisChannelOptions } from '@rxagents/redis';
 *
 * const options: RedisChannelOptions<string> = { bufferSize: 64, backpressure: BackpressureStrategy.BLOCK, offerTimeout: 2_000 };
 * console.log(options.bufferSize); // 64
 * ```
 */
export type RedisChannelOptions<T = unknown> = Omit<z.input<typeof RedisChannelOptionsSchema>, 'schema'> & {
  /** Items failing it are rejected at `offer`/`emit` with `ChannelItemError` and skipped by consumers. */
  readonly schema?: ItemSchema<T>;
};

/**
 * A channel whose items cross processes through the Redis stream `<prefix>:channel:{<id>}:items`.
 *
 * @remarks
 * Call it with the same `id` and options in every process that produces or consumes: each call gives
 * both sides, {@link RedisChannel}. The four strategies mean what they mean for a local
 * `StreamingChannel`, with the buffer being what the slowest live consumer has not handled yet:
 * `BLOCK` waits (up to `offerTimeout`) until it is within `bufferSize` entries, `DROP_OLDEST` trims the
 * stream to `bufferSize` entries (a consumer that falls behind counts the entries it missed as dropped),
 * `DROP_NEWEST` refuses the offer, `ERROR` rejects it with `BufferOverflowError`. Consumers register in
 * Redis with a lease, so one that dies stops counting `leaseMs` after its last renewal. See `docs/redis.md`.
 *
 * @param redis - An ioredis `Redis` or `Cluster` client ({@link RedisClient}) for writes; each consumer opens one duplicate of it for its blocking reads.
 * @param id - The channel's id; use an unguessable one (`crypto.randomUUID()`) for a channel that must not be found. It becomes the hash tag of the channel's keys, so it must not contain `{` or `}` (a `ConfigError` naming `id` otherwise).
 * @param options - See {@link RedisChannelOptions}.
 *
 * @example
 * ```ts
 * import { BackpressureStrategy } from '@rxagents/streaming';
 * import { redisChannel } from '@rxagents/redis';
 * import { Redis } from 'ioredis';
 *
 * export function answers(id: string) {
 *   return redisChannel<string>(new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379'), id, {
 *     bufferSize: 64,
 *     backpressure: BackpressureStrategy.BLOCK,
 *   });
 * }
 * ```
 *
 * @see {@link RedisChannel}
 */
export function redisChannel<T>(redis: RedisClient, id: string, options: RedisChannelOptions<T> = {}): RedisChannel<T> {
  checkClient(redis, 'redisChannel');
  const channelId = hashTagId(id, 'redisChannel', 'id');
  const config = parseConfig(RedisChannelOptionsSchema, options, `redisChannel "${channelId}"`);
  return new RedisChannelCore<T>(redis, channelId, { ...config, schema: config.schema as ItemSchema<T> | undefined });
}
