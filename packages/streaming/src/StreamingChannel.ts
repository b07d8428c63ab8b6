import { asyncScheduler, Observable, type SchedulerLike, type Subscription } from 'rxjs';
import { ConfigError, parseConfig } from '@rxagents/core';
import { BackpressureStrategy } from './BackpressureStrategy';
import type { ChannelMetrics } from './ChannelMetrics';
import type { ChannelHandler, ChannelObserver, SubscribeOptions } from './ChannelSubscriber';
import { type ChannelDispatcher, ChannelState, wouldPark } from './internal/ChannelDispatcher';
import { channelMetricsOf, hasEnded } from './internal/channelMetricsOf';
import { assertOpen, closeDispatcher, completeDispatcher, errorDispatcher, onComplete, producerSignal } from './internal/closeDispatcher';
import { createDispatcher, emitItem, subscribeLane } from './internal/createDispatcher';
import { addEndHandler, addErrorHandler } from './internal/ChannelListeners';
import { channelIterator } from './internal/channelIterator';
import { DerivationRelay } from './internal/DerivationRelay';
import { channelReadableStream } from './internal/channelReadableStream';
import { laneObservable } from './internal/laneObservable';
import { laneOptions } from './internal/laneOptions';
import { linkDerived } from './internal/linkDerived';
import { metricsStream } from './internal/metricsStream';
import { offerObservable } from './internal/offerObservable';
import { offerPromise } from './internal/offerPromise';
import { requireFunction } from './internal/requireFunction';
import { validateItem } from './internal/validateItem';
import { type ItemSchema, type StreamingChannelOptions, StreamingChannelOptionsSchema } from './StreamingChannelOptions';

const observableKey: string | symbol = (typeof Symbol === 'function' && (Symbol as { observable?: symbol }).observable) || '@@observable';

type Settings = Required<Omit<StreamingChannelOptions<unknown>, 'scheduler' | 'dispatchScheduler' | 'schema'>> &
  Pick<StreamingChannelOptions<unknown>, 'scheduler' | 'dispatchScheduler'>;

/**
 * A bounded, observable channel from producers to subscribers, with an explicit backpressure strategy
 * and live metrics.
 *
 * @remarks
 * Producers call `emit` (or `offer` to wait for space under `BLOCK`); every subscriber receives every
 * item, in order. `emit` appends to the bounded buffer and drains it synchronously, trampolined (a
 * subscriber may emit back into the channel without recursion), until the buffer is empty or a
 * subscriber is busy: a handler that returns a Promise or an Observable is waited for, items accumulate,
 * and the strategy acts on the full buffer. Items emitted before the first subscriber wait in the buffer.
 * `complete()` delivers what is buffered and parked, runs `onComplete` handlers and completes every
 * subscriber; `error(err)` delivers what is buffered, then fails every subscriber with `err`; `close()`
 * discards everything at once. See `docs/streaming.md`.
 *
 * @example
 * ```ts
 * import { BackpressureStrategy, StreamingChannel } from '@rxagents/streaming';
 *
 * const channel = StreamingChannel.builder<string>()
 *   .id('analysis-stream')
 *   .bufferSize(100)
 *   .backpressure(BackpressureStrategy.BLOCK)
 *   .offerTimeout(5_000)
 *   .build();
 *
 * const lengths = channel.filter((chunk) => chunk.trim() !== '').map((chunk) => chunk.length);
 * lengths.subscribe((length) => console.log(`Chunk of ${length} chars`));
 * channel.onError((error) => console.error('Subscriber failed:', error));
 * channel.onComplete(() => console.log('Stream finished'));
 *
 * channel.emit('first chunk');
 * channel.emitAll(['second chunk', 'third chunk']);
 * channel.complete();
 *
 * const metrics = channel.metrics();
 * console.log(`Emitted ${metrics.emitted}, dropped ${metrics.dropped} (${metrics.dropRate()}%)`);
 * ```
 */
export class StreamingChannel<T> implements AsyncIterable<T> {
  /** The channel's id. */
  readonly id: string;
  /** Metrics for dashboards: the snapshot at once, then at most one per `metricsSampleTime` (on `scheduler`) while they change; completes when the channel has ended. */
  readonly metrics$: Observable<ChannelMetrics>;
  readonly #settings: Settings;
  readonly #core: ChannelDispatcher<T>;
  readonly #schema: ItemSchema<T> | undefined;
  /** The schema check of `offer`/`offer$`, made once; `undefined` without a schema. */
  readonly #validateOffer: ((item: T) => T) | undefined;
  #relay: DerivationRelay | undefined;

  static {
    Object.defineProperty(this.prototype, observableKey, {
      value: function (this: StreamingChannel<unknown>) {
        return this.asObservable();
      },
    });
  }

  /**
   * Starts a fluent builder; `build()` validates and creates the channel.
   *
   * @example
   * ```ts
   * import { StreamingChannel } from '@rxagents/streaming';
   *
   * const tokens = StreamingChannel.builder<string>().id('tokens').bufferSize(64).build();
   * console.log(tokens.id); // tokens
   * ```
   */
  static builder<T>(): StreamingChannelBuilder<T> {
    return new StreamingChannelBuilder<T>();
  }

  /**
   * Creates a channel from options, validated with {@link StreamingChannelOptionsSchema}.
   *
   * @throws {@link @rxagents/core!ConfigError | ConfigError} when an option breaks its rule.
   *
   * @example
   * ```ts
   * import { StreamingChannel } from '@rxagents/streaming';
   *
   * const events = StreamingChannel.create<string>({ id: 'events', bufferSize: 32 });
   * console.log(events.metrics().bufferCapacity); // 32
   * ```
   */
  static create<T>(options: StreamingChannelOptions<T> = {}): StreamingChannel<T> {
    return new StreamingChannel<T>(options);
  }

  /** Prefer {@link StreamingChannel.create} or {@link StreamingChannel.builder}; same validation. */
  constructor(options: StreamingChannelOptions<T> = {}) {
    const { schema, ...settings } = parseConfig(StreamingChannelOptionsSchema, options, 'StreamingChannel options');
    const scheduler = settings.scheduler ?? asyncScheduler;
    this.#settings = settings;
    this.id = settings.id;
    this.#schema = schema as ItemSchema<T> | undefined;
    this.#validateOffer = schema === undefined ? undefined : (item) => this.#validate(item);
    this.#core = createDispatcher<T>({ ...settings, scheduler, dispatchScheduler: settings.dispatchScheduler });
    this.metrics$ = metricsStream(
      () => this.metrics(),
      () => hasEnded(this.#core),
      (handler) => addEndHandler(this.#core.listeners, handler),
      settings.metricsSampleTime,
      scheduler,
    );
  }

  /**
   * Offers an item without waiting; returns `false` when it was dropped.
   *
   * @remarks
   * Under `BLOCK` with a full buffer the item is parked (up to `offerTimeout`) and `true` is returned; its
   * fate shows in `metrics()`. Past `maxPendingOffers` it is dropped (`false`), or, with
   * `strictPendingOffers`, a {@link BufferOverflowError} is thrown.
   *
   * @throws {@link ChannelClosedError} after `complete()` or `close()`.
   * @throws {@link BufferOverflowError} under `ERROR` when the buffer is full.
   * @throws {@link ChannelItemError} when the item fails the channel's schema.
   */
  emit(item: T): boolean {
    return emitItem(this.#core, this.#schema === undefined ? item : this.#validate(item));
  }

  /**
   * Emits every item in order; returns how many were accepted.
   *
   * @throws as {@link StreamingChannel.emit} does, at the first item that throws; `ConfigError` when `items` is not iterable.
   */
  emitAll(items: Iterable<T>): number {
    if (typeof (items as Partial<Iterable<T>> | null)?.[Symbol.iterator] !== 'function') {
      throw new ConfigError(`StreamingChannel ${this.id}`, [{ path: 'items', rule: 'must be an iterable (an array, a Set, a generator)', received: items }]);
    }
    let accepted = 0;
    for (const item of items) if (this.emit(item)) accepted += 1;
    return accepted;
  }

  /**
   * Offers an item and waits for buffer space under `BLOCK`: resolves `true` once the item is in the
   * buffer, `false` when it was dropped (`offerTimeout` passed first, the parked-offer cap was reached, or
   * `close()` discarded it).
   *
   * @remarks
   * Under other strategies it resolves at once with what `emit` returns. Rejects with
   * {@link ChannelClosedError}, {@link BufferOverflowError} or {@link ChannelItemError} where `emit` throws,
   * and with {@link ChannelClosedError} (state `errored`) when `error()` ends the channel while it is parked.
   */
  offer(item: T): Promise<boolean> {
    return offerPromise(this.#core, item, this.#validateOffer);
  }

  /**
   * The Observable form of {@link StreamingChannel.offer}, for pipelines and marble tests: offers on
   * subscription, emits `true`/`false` once and completes. Unsubscribing while parked withdraws the offer
   * (counted as dropped). Errors where `offer` rejects, a parked offer refused by `error()` included.
   */
  offer$(item: T): Observable<boolean> {
    return offerObservable(this.#core, item, this.#validateOffer);
  }

  /** Refuses new items, delivers what is buffered and parked, then runs `onComplete` handlers and completes every subscriber. */
  complete(): void {
    completeDispatcher(this.#core);
  }

  /**
   * Ends the channel with a failure: refuses new items, delivers what is buffered, then fails every
   * subscriber with `error`.
   *
   * @remarks
   * Like `complete()`, each subscriber first receives the items buffered for it (in the channel's buffer
   * and in its own), then its `error` callback runs with `error`: a `for await` loop throws it, a
   * `toReadableStream()` reader's `read()` rejects with it, an Observable from `asObservable()` or
   * `from(channel)` errors with it. A subscriber without an `error` callback just ends. Offers parked
   * under `BLOCK` are not delivered: they count as dropped and their `offer` rejects with
   * {@link ChannelClosedError} (state `errored`, `cause` = `error`), as do later `emit` and `offer` calls.
   * `onComplete` handlers do not run; `metrics().errored` is `true`. Ignored once the channel is
   * completing, completed, closed or errored; a channel subscribed to after it has errored errors at once.
   *
   * @example
   * ```ts
   * import { StreamingChannel } from '@rxagents/streaming';
   *
   * const answers = StreamingChannel.create<string>();
   * answers.emitAll(['Paris', 'is']);
   * answers.error(new Error('model unavailable'));
   * try {
   *   for await (const token of answers) console.log(token); // Paris, is
   * } catch (error) {
   *   console.log((error as Error).message); // model unavailable
   * }
   * console.log(answers.metrics().errored); // true
   * ```
   */
  error(error: unknown): void {
    errorDispatcher(this.#core, error);
  }

  /**
   * The producer's `AbortSignal`: aborted, with a {@link ChannelClosedError} as reason, when the last
   * subscriber leaves a channel created with `onLastUnsubscribe: 'abort'`. Hand it to the agent or loop
   * feeding the channel so that it stops once nobody reads. Never aborted under `keep` or `close`, nor by
   * `complete()`, `close()` or `error()`.
   *
   * @example
   * ```ts
   * import { take } from 'rxjs';
   * import { StreamingChannel } from '@rxagents/streaming';
   *
   * const tokens = StreamingChannel.create<string>({ onLastUnsubscribe: 'abort' });
   * tokens.signal.addEventListener('abort', () => console.log('producer stops'));
   * tokens.asObservable().pipe(take(1)).subscribe((token) => console.log(token));
   * tokens.emit('first'); // first, producer stops
   * console.log(tokens.metrics().closed); // true
   * ```
   */
  get signal(): AbortSignal {
    return producerSignal(this.#core);
  }

  /** Stops at once: discards the buffer and parked offers (their `offer` resolves `false`) and completes every subscriber. `onComplete` handlers do not run. */
  close(): void {
    closeDispatcher(this.#core);
  }

  /**
   * Subscribes a handler or observer; every subscriber receives every item in order.
   *
   * @remarks
   * A handler may return a Promise or an Observable: the dispatcher waits for it (that is how a slow
   * consumer creates backpressure). With `options` the subscriber gets its own bounded buffer instead
   * (see {@link SubscribeOptions}). A handler that throws or rejects is reported to `onError` handlers and
   * the dispatcher keeps going; so is whatever else the subscriber's code throws during delivery (a
   * thenable's `then`, its own `error`/`complete` callbacks). A handler that unsubscribes itself before
   * returning a Promise or an Observable is not waited for. The observer's `error` receives the channel's
   * `error()` after the buffered items, or its own buffer's `BufferOverflowError`. Subscribing to a
   * completed or closed channel completes at once; to an errored one, errors at once.
   *
   * @throws {@link @rxagents/core!ConfigError | ConfigError} when `options` break their rules, or `subscriber` is neither a function nor an object.
   */
  subscribe(subscriber: ChannelHandler<T> | Partial<ChannelObserver<T>>, options?: SubscribeOptions): Subscription {
    return this.#subscribe(subscriber, options);
  }

  /** Registers a handler for subscriber failures (a throw or a rejection), with the item; the dispatcher keeps going. Unsubscribe to remove it. */
  onError(handler: (error: unknown, item: T | undefined) => void): Subscription {
    return addErrorHandler(this.#core.listeners, requireFunction(handler, 'onError', 'handler'));
  }

  /** Registers a handler run once every item is delivered after `complete()` (never after `close()` or `error()`); runs at once if that already happened. */
  onComplete(handler: () => void): Subscription {
    return onComplete(this.#core, requireFunction(handler, 'onComplete', 'handler'));
  }

  /**
   * A new channel `<id>-mapped` (same options) fed with `fn(item)`; it completes, errors or closes with this one.
   *
   * @remarks
   * `fn` throwing is reported to this channel's `onError` with the item. Derived channels chain to any
   * depth in constant stack (10,000 `map`s in a row deliver synchronously).
   */
  map<R>(fn: (item: T) => R): StreamingChannel<R> {
    requireFunction(fn, 'map', 'fn');
    return this.#derive<R>('mapped', (item, child) => child.#forward(fn(item)));
  }

  /** A new channel `<id>-filtered` (same options) fed with the items `predicate` accepts; it completes, errors or closes with this one. Chains to any depth, as {@link StreamingChannel.map}. */
  filter(predicate: (item: T) => boolean): StreamingChannel<T> {
    requireFunction(predicate, 'filter', 'predicate');
    return this.#derive<T>('filtered', (item, child) => (predicate(item) ? child.#forward(item) : undefined));
  }

  /** A snapshot of the channel's counters (see {@link ChannelMetrics}). */
  metrics(): ChannelMetrics {
    return channelMetricsOf(this.id, this.#core);
  }

  /**
   * The channel as an RxJS Observable: each subscription is a channel subscriber (optionally with its own buffer).
   *
   * @throws {@link @rxagents/core!ConfigError | ConfigError} at once when `options` break their rules.
   */
  asObservable(options?: SubscribeOptions): Observable<T> {
    return laneObservable(this.#core, laneOptions(options, this.#settings));
  }

  /** `for await (const item of channel)`: {@link StreamingChannel.iterate} without options, a subscriber that paces the channel. */
  [Symbol.asyncIterator](): AsyncIterableIterator<T> {
    return this.iterate();
  }

  /**
   * An async iterator over the items, for `for await`; leaving the loop unsubscribes, the channel's
   * `error()` makes the loop throw after the buffered items.
   *
   * @remarks
   * Without options the iterator paces the channel: the next item is handed over when the loop body has
   * run, and a slow loop holds back every other subscriber. With `options` the loop gets its own buffer
   * (see {@link SubscribeOptions}): a slow loop then loses items under `DROP_OLDEST`/`DROP_NEWEST`
   * (counted in `metrics().subscriberDropped`) instead of stalling the others.
   *
   * @throws {@link @rxagents/core!ConfigError | ConfigError} at once when `options` break their rules.
   *
   * @example
   * ```ts
   * import { BackpressureStrategy, StreamingChannel } from '@rxagents/streaming';
   *
   * const progress = StreamingChannel.create<number>();
   * const latest = progress.iterate({ bufferSize: 1, backpressure: BackpressureStrategy.DROP_OLDEST });
   * progress.emitAll([10, 20, 30]);
   * progress.complete();
   * for await (const percent of latest) console.log(percent); // 10, 30
   * ```
   */
  iterate(options?: SubscribeOptions): AsyncIterableIterator<T> {
    const lane = laneOptions(options, this.#settings);
    return channelIterator<T>((observer) => subscribeLane(this.#core, observer, lane.bufferSize, lane.strategy));
  }

  /**
   * A Web `ReadableStream` of the items; cancelling unsubscribes, the channel's `error()` errors the
   * stream after the buffered items are read.
   *
   * @remarks
   * Without options the reader's pulls pace the channel (a stream nobody reads holds back every other
   * subscriber); with `options` the stream gets its own buffer, as {@link StreamingChannel.iterate}.
   *
   * @throws {@link @rxagents/core!ConfigError | ConfigError} at once when `options` break their rules.
   */
  toReadableStream(options?: SubscribeOptions): ReadableStream<T> {
    const lane = laneOptions(options, this.#settings);
    return channelReadableStream<T>((observer) => subscribeLane(this.#core, observer, lane.bufferSize, lane.strategy));
  }

  #subscribe(subscriber: ChannelHandler<T> | Partial<ChannelObserver<T>>, options: SubscribeOptions | undefined): Subscription {
    if (typeof subscriber !== 'function' && (typeof subscriber !== 'object' || subscriber === null)) {
      throw new ConfigError('StreamingChannel subscribe', [{ path: 'subscriber', rule: 'must be a function or an observer object', received: subscriber }]);
    }
    const lane = laneOptions(options, this.#settings);
    return subscribeLane(this.#core, subscriber, lane.bufferSize, lane.strategy);
  }

  #validate(item: T): T {
    assertOpen(this.#core);
    return validateItem(this.#schema as ItemSchema<T>, this.id, item);
  }

  #forward(item: T): Promise<boolean> | undefined {
    if (this.#core.state !== ChannelState.Open) return undefined;
    if (this.#settings.backpressure !== BackpressureStrategy.BLOCK || !wouldPark(this.#core)) {
      this.emit(item);
      return undefined;
    }
    return this.offer(item);
  }

  /** Derived channels share their root's relay, so a chain of any depth delivers in constant stack. */
  #derive<R>(suffix: string, feed: (item: T, child: StreamingChannel<R>) => Promise<boolean> | undefined): StreamingChannel<R> {
    const child = new StreamingChannel<R>({ ...this.#settings, id: `${this.id}-${suffix}` });
    const relay = (this.#relay ??= new DerivationRelay());
    child.#relay = relay;
    linkDerived(relay, this.#core, child.#core, {
      feed: (item) => feed(item, child),
      error: (failure) => child.error(failure),
      close: () => child.close(),
      complete: () => child.complete(),
    });
    return child;
  }
}

/**
 * The fluent builder of {@link StreamingChannel}, from `StreamingChannel.builder<T>()`.
 *
 * @remarks
 * Each setter records one option; `build()` validates them all with
 * {@link StreamingChannelOptionsSchema} and throws one {@link @rxagents/core!ConfigError | ConfigError} naming every bad field.
 * Defaults: a random 8-character id, buffer 256, `DROP_OLDEST`, offer timeout 5 s, 1024 parked offers,
 * `onLastUnsubscribe: 'keep'`.
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

  /** When the last subscriber leaves: `keep` the channel open, `close` it, or close it and `abort` `channel.signal`. Default `keep`. */
  onLastUnsubscribe(action: 'keep' | 'close' | 'abort'): this {
    this.#options.onLastUnsubscribe = action;
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
    return new StreamingChannel<T>({ ...this.#options });
  }
}
