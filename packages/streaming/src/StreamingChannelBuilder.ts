import type { SchedulerLike } from 'rxjs';
import type { BackpressureStrategy } from './BackpressureStrategy';
import type { StreamingChannel } from './StreamingChannel';
import type { ItemSchema, StreamingChannelOptions } from './StreamingChannelOptions';

/**
 * The fluent builder of {@link StreamingChannel}, from `StreamingChannel.builder<T>()`.
 *
 * @remarks
 * Each setter records one option; `build()` validates them all with
 * {@link StreamingChannelOptionsSchema} and throws one {@link @rxagents/core!ConfigError | ConfigError} naming every bad field.
 * Defaults: a random 8-character id, buffer 256, `DROP_OLDEST`, offer timeout 5 s, 1024 parked offers.
 *
 * @example
 * ```ts
 * import { asapScheduler } from 'rxjs';
 * import { BackpressureStrategy, StreamingChannel } from '@rxagents/streaming';
 *
 * const channel = StreamingChannel.builder<string>()
 *   .id('ui-tokens')
 *   .bufferSize(512)
 *   .backpressure(BackpressureStrategy.BLOCK)
 *   .offerTimeout(2_000)
 *   .maxPendingOffers(64)
 *   .dispatchScheduler(asapScheduler)
 *   .build();
 * ```
 */
export class StreamingChannelBuilder<T> {
  #options: { -readonly [K in keyof StreamingChannelOptions<T>]: StreamingChannelOptions<T>[K] } = {};
  readonly #create: (options: StreamingChannelOptions<T>) => StreamingChannel<T>;

  /** Use `StreamingChannel.builder<T>()`. */
  constructor(create: (options: StreamingChannelOptions<T>) => StreamingChannel<T>) {
    this.#create = create;
  }

  /** The channel's id. Default: a random 8-character id. */
  id(id: string): this {
    this.#options.id = id;
    return this;
  }

  /** Capacity of the channel's buffer. Default 256. */
  bufferSize(size: number): this {
    this.#options.bufferSize = size;
    return this;
  }

  /** What happens when the buffer is full. Default `DROP_OLDEST`. */
  backpressure(strategy: BackpressureStrategy): this {
    this.#options.backpressure = strategy;
    return this;
  }

  /** Under `BLOCK`: how long (ms, on the scheduler) an offer may wait for space; `Infinity` waits for ever. Default 5000. */
  offerTimeout(ms: number): this {
    this.#options.offerTimeout = ms;
    return this;
  }

  /** Under `BLOCK`: how many offers may wait at once. Default 1024. */
  maxPendingOffers(count: number): this {
    this.#options.maxPendingOffers = count;
    return this;
  }

  /** Under `BLOCK`: throw `BufferOverflowError` past `maxPendingOffers` instead of dropping. Default false. */
  strictPendingOffers(strict = true): this {
    this.#options.strictPendingOffers = strict;
    return this;
  }

  /** The shortest time (ms) between two `metrics$` emissions; `Infinity` for no sampling. Default 250. */
  metricsSampleTime(ms: number): this {
    this.#options.metricsSampleTime = ms;
    return this;
  }

  /** The clock of `offerTimeout` and `metrics$`. Default `asyncScheduler`. */
  scheduler(scheduler: SchedulerLike): this {
    this.#options.scheduler = scheduler;
    return this;
  }

  /** Drain on this scheduler, in batches, instead of on the emitter's stack. */
  dispatchScheduler(scheduler: SchedulerLike): this {
    this.#options.dispatchScheduler = scheduler;
    return this;
  }

  /** Reject items that fail this zod schema at `emit`, with `ChannelItemError`. */
  schema(schema: ItemSchema<T>): this {
    this.#options.schema = schema;
    return this;
  }

  /**
   * Validates the options and creates the channel.
   *
   * @throws {@link @rxagents/core!ConfigError | ConfigError} naming every field that breaks its rule.
   */
  build(): StreamingChannel<T> {
    return this.#create({ ...this.#options });
  }
}
