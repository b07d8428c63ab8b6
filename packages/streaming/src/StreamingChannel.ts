import { asyncScheduler, config, interval, Observable, type SchedulerLike, Subscription } from 'rxjs';
import { parseConfig } from '@rxagents/core';
import { BackpressureStrategy } from './BackpressureStrategy';
import { type ChannelMetrics, createChannelMetrics } from './ChannelMetrics';
import { type ChannelHandler, type ChannelObserver, type SubscribeOptions, SubscribeOptionsSchema } from './ChannelSubscriber';
import { BufferOverflowError } from './errors/BufferOverflowError';
import { ChannelClosedError } from './errors/ChannelClosedError';
import { ChannelItemError } from './errors/ChannelItemError';
import { channelIterator } from './internal/channelIterator';
import { channelReadableStream } from './internal/channelReadableStream';
import { type ParkedEntry, ParkedQueue } from './internal/ParkedQueue';
import { RingBuffer } from './internal/RingBuffer';
import { type LaneHost, SubscriberLane } from './internal/SubscriberLane';
import { StreamingChannelBuilder } from './StreamingChannelBuilder';
import { type ItemSchema, type StreamingChannelOptions, StreamingChannelOptionsSchema } from './StreamingChannelOptions';

const OPEN = 0;
const COMPLETING = 1;
const COMPLETED = 2;
const CLOSED = 3;
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
 * subscriber; `close()` discards everything at once. See `docs/streaming.md`.
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
  /** Metrics for dashboards: the current snapshot at once, then at most one per `metricsSampleTime` while they change; completes when the channel ends. */
  readonly metrics$: Observable<ChannelMetrics>;
  readonly #settings: Settings;
  readonly #buffer: RingBuffer<T>;
  readonly #strategy: BackpressureStrategy;
  readonly #scheduler: SchedulerLike;
  readonly #dispatchScheduler: SchedulerLike | undefined;
  readonly #schema: ItemSchema<T> | undefined;
  readonly #parked: ParkedQueue<T>;
  readonly #host: LaneHost<T>;
  readonly #accepted = Promise.resolve(true);
  readonly #refused = Promise.resolve(false);
  #lanes: SubscriberLane<T>[] = [];
  #errorHandlers: ((error: unknown, item: T | undefined) => void)[] = [];
  #completeHandlers: (() => void)[] = [];
  #teardowns: (() => void)[] = [];
  #state = OPEN;
  #draining = false;
  #blocking = 0;
  #scheduledDrain: Subscription | undefined;
  #emitted = 0;
  #delivered = 0;
  #dropped = 0;
  #subscriberDropped = 0;

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
    return new StreamingChannelBuilder<T>((options) => new StreamingChannel<T>(options));
  }

  /**
   * Creates a channel from options, validated with {@link StreamingChannelOptionsSchema}.
   *
   * @throws {@link ConfigError} when an option breaks its rule.
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
    this.#settings = settings;
    this.id = settings.id;
    this.#buffer = new RingBuffer<T>(settings.bufferSize);
    this.#strategy = settings.backpressure;
    this.#scheduler = settings.scheduler ?? asyncScheduler;
    this.#dispatchScheduler = settings.dispatchScheduler;
    this.#schema = schema as ItemSchema<T> | undefined;
    this.#parked = new ParkedQueue<T>(settings.offerTimeout, this.#scheduler, (entry) => this.#expired(entry));
    this.#host = {
      id: this.id,
      blockingChanged: (blocking) => {
        this.#blocking += blocking ? 1 : -1;
        if (!blocking) this.#requestDrain();
      },
      reportError: (error, item) => this.#reportError(error, item),
      laneDropped: () => (this.#subscriberDropped += 1),
      laneFailed: (lane) => this.#removeLane(lane),
    };
    this.metrics$ = this.#metricsStream(settings.metricsSampleTime);
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
    if (this.#state !== OPEN) throw new ChannelClosedError(this.id, this.#state === CLOSED ? 'closed' : 'completed');
    if (this.#schema !== undefined) item = this.#validate(item);
    this.#emitted += 1;
    const buffer = this.#buffer;
    if (buffer.size === 0 && !this.#draining && this.#blocking === 0 && this.#lanes.length > 0 && this.#dispatchScheduler === undefined) {
      this.#draining = true;
      this.#dispatch(item);
      this.#draining = false;
      if (buffer.size > 0) this.#drain();
      return true;
    }
    const result = this.#enqueue(item, undefined);
    return result !== false;
  }

  /**
   * Emits every item in order; returns how many were accepted.
   *
   * @throws as {@link StreamingChannel.emit} does, at the first item that throws.
   */
  emitAll(items: Iterable<T>): number {
    let accepted = 0;
    for (const item of items) if (this.emit(item)) accepted += 1;
    return accepted;
  }

  /**
   * Offers an item and waits for buffer space under `BLOCK`: resolves `true` once the item is in the
   * buffer, `false` when it was dropped (`offerTimeout` passed first, or the parked-offer cap was reached).
   *
   * @remarks
   * Under other strategies it resolves at once with what `emit` returns. Rejects with
   * {@link ChannelClosedError}, {@link BufferOverflowError} or {@link ChannelItemError} where `emit` throws.
   */
  offer(item: T): Promise<boolean> {
    let result: boolean | ParkedEntry<T>;
    try {
      result = this.#offerItem(item, undefined);
    } catch (error) {
      return Promise.reject(error);
    }
    if (result === true) return this.#accepted;
    if (result === false) return this.#refused;
    const entry = result;
    return new Promise<boolean>((resolve) => {
      entry.settle = resolve;
    });
  }

  /**
   * The Observable form of {@link StreamingChannel.offer}, for pipelines and marble tests: offers on
   * subscription, emits `true`/`false` once and completes. Unsubscribing while parked withdraws the offer
   * (counted as dropped).
   */
  offer$(item: T): Observable<boolean> {
    return new Observable<boolean>((subscriber) => {
      const settle = (accepted: boolean): void => {
        subscriber.next(accepted);
        subscriber.complete();
      };
      const result = this.#offerItem(item, settle);
      if (typeof result === 'boolean') {
        settle(result);
        return undefined;
      }
      return () => {
        if (this.#parked.cancel(result)) this.#dropped += 1;
      };
    });
  }

  /** Refuses new items, delivers what is buffered and parked, then runs `onComplete` handlers and completes every subscriber. */
  complete(): void {
    if (this.#state !== OPEN) return;
    this.#state = COMPLETING;
    this.#requestDrain();
  }

  /** Stops at once: discards the buffer and parked offers (their `offer` resolves `false`) and completes every subscriber. `onComplete` handlers do not run. */
  close(): void {
    if (this.#state === CLOSED || this.#state === COMPLETED) return;
    this.#state = CLOSED;
    this.#scheduledDrain?.unsubscribe();
    this.#dropped += this.#buffer.size;
    this.#buffer.clear();
    for (const entry of this.#parked.clear()) {
      this.#dropped += 1;
      entry.settle?.(false);
    }
    const lanes = this.#lanes;
    this.#lanes = [];
    this.#blocking = 0;
    for (const lane of lanes) lane.close();
    this.#runTeardowns();
  }

  /**
   * Subscribes a handler or observer; every subscriber receives every item in order.
   *
   * @remarks
   * A handler may return a Promise or an Observable: the dispatcher waits for it (that is how a slow
   * consumer creates backpressure). With `options` the subscriber gets its own bounded buffer instead
   * (see {@link SubscribeOptions}). A handler that throws or rejects is reported to `onError` handlers and
   * the dispatcher keeps going. Subscribing to a completed or closed channel completes at once.
   *
   * @throws {@link ConfigError} when `options` break their rules.
   */
  subscribe(subscriber: ChannelHandler<T> | Partial<ChannelObserver<T>>, options?: SubscribeOptions): Subscription {
    const observer: Partial<ChannelObserver<T>> = typeof subscriber === 'function' ? { next: subscriber } : subscriber;
    let bufferSize: number | undefined;
    let strategy = BackpressureStrategy.BLOCK as BackpressureStrategy;
    if (options !== undefined) {
      const parsed = parseConfig(SubscribeOptionsSchema, options, 'StreamingChannel subscribe options');
      if (parsed.bufferSize !== undefined || parsed.backpressure !== undefined) {
        bufferSize = parsed.bufferSize ?? this.#settings.bufferSize;
        strategy = parsed.backpressure ?? this.#strategy;
      }
    }
    if (this.#state === COMPLETED || this.#state === CLOSED) {
      observer.complete?.();
      return Subscription.EMPTY;
    }
    const lane = new SubscriberLane<T>(this.#host, observer, bufferSize, strategy);
    this.#lanes = [...this.#lanes, lane];
    this.#requestDrain();
    return new Subscription(() => this.#removeLane(lane));
  }

  /** Registers a handler for subscriber failures (a throw or a rejection); the dispatcher keeps going. Unsubscribe to remove it. */
  onError(handler: (error: unknown, item: T | undefined) => void): Subscription {
    this.#errorHandlers = [...this.#errorHandlers, handler];
    return new Subscription(() => (this.#errorHandlers = this.#errorHandlers.filter((h) => h !== handler)));
  }

  /** Registers a handler run once every item is delivered after `complete()` (not after `close()`); runs at once if that already happened. */
  onComplete(handler: () => void): Subscription {
    if (this.#state === COMPLETED) {
      this.#safely(handler);
      return Subscription.EMPTY;
    }
    this.#completeHandlers = [...this.#completeHandlers, handler];
    return new Subscription(() => (this.#completeHandlers = this.#completeHandlers.filter((h) => h !== handler)));
  }

  /** A new channel `<id>-mapped` (same buffer size and strategy) fed with `fn(item)`; it completes when this one completes. */
  map<R>(fn: (item: T) => R): StreamingChannel<R> {
    return this.#derive<R>('mapped', (item, child) => child.#forward(fn(item)));
  }

  /** A new channel `<id>-filtered` (same buffer size and strategy) fed with the items `predicate` accepts; it completes when this one completes. */
  filter(predicate: (item: T) => boolean): StreamingChannel<T> {
    return this.#derive<T>('filtered', (item, child) => (predicate(item) ? child.#forward(item) : undefined));
  }

  /** A snapshot of the channel's counters (see {@link ChannelMetrics}). */
  metrics(): ChannelMetrics {
    return createChannelMetrics({
      channelId: this.id,
      emitted: this.#emitted,
      delivered: this.#delivered,
      dropped: this.#dropped,
      bufferUsed: this.#buffer.size,
      bufferCapacity: this.#buffer.capacity,
      pendingOffers: this.#parked.size,
      subscriberCount: this.#lanes.length,
      subscriberDropped: this.#subscriberDropped,
      completed: this.#state === COMPLETING || this.#state === COMPLETED,
      closed: this.#state === CLOSED,
    });
  }

  /** The channel as an RxJS Observable: each subscription is a channel subscriber (optionally with its own buffer). */
  asObservable(options?: SubscribeOptions): Observable<T> {
    return new Observable<T>((subscriber) =>
      this.subscribe(
        { next: (item) => subscriber.next(item), error: (error) => subscriber.error(error), complete: () => subscriber.complete() },
        options,
      ),
    );
  }

  /** A pacing subscriber for `for await`: the next item is handed over when the loop body has run. */
  [Symbol.asyncIterator](): AsyncIterableIterator<T> {
    return channelIterator<T>((observer) => this.subscribe(observer));
  }

  /** A Web `ReadableStream` of the items; the reader's pulls pace the channel; cancelling unsubscribes. */
  toReadableStream(): ReadableStream<T> {
    return channelReadableStream<T>((observer) => this.subscribe(observer));
  }

  #offerItem(item: T, settle: ((accepted: boolean) => void) | undefined): boolean | ParkedEntry<T> {
    if (this.#state !== OPEN) throw new ChannelClosedError(this.id, this.#state === CLOSED ? 'closed' : 'completed');
    if (this.#schema !== undefined) item = this.#validate(item);
    this.#emitted += 1;
    return this.#enqueue(item, settle);
  }

  #enqueue(item: T, settle: ((accepted: boolean) => void) | undefined): boolean | ParkedEntry<T> {
    const buffer = this.#buffer;
    if (!buffer.full && this.#parked.size === 0) {
      buffer.push(item);
      this.#requestDrain();
      return true;
    }
    switch (this.#strategy) {
      case BackpressureStrategy.DROP_OLDEST:
        buffer.shift();
        buffer.push(item);
        this.#dropped += 1;
        return true;
      case BackpressureStrategy.DROP_NEWEST:
        this.#dropped += 1;
        return false;
      case BackpressureStrategy.ERROR:
        this.#dropped += 1;
        throw new BufferOverflowError(this.id, buffer.capacity);
      default:
        if (this.#parked.size < this.#settings.maxPendingOffers) return this.#parked.park(item, settle);
        this.#dropped += 1;
        if (this.#settings.strictPendingOffers) throw new BufferOverflowError(this.id, this.#settings.maxPendingOffers, 'the parked-offer queue');
        return false;
    }
  }

  #requestDrain(): void {
    if (this.#dispatchScheduler === undefined) this.#drain();
    else if (this.#scheduledDrain === undefined && this.#state !== CLOSED) {
      this.#scheduledDrain = this.#dispatchScheduler.schedule(() => {
        this.#scheduledDrain = undefined;
        this.#drain();
      });
    }
  }

  #drain(): void {
    if (this.#draining) return;
    this.#draining = true;
    const buffer = this.#buffer;
    const parked = this.#parked;
    while (buffer.size > 0 && this.#blocking === 0 && this.#lanes.length > 0) {
      const item = buffer.shift();
      if (parked.size > 0) {
        const entry = parked.take() as ParkedEntry<T>;
        buffer.push(entry.item);
        entry.settle?.(true);
      }
      this.#dispatch(item);
    }
    this.#draining = false;
    if (this.#state === COMPLETING && buffer.size === 0 && parked.size === 0 && this.#blocking === 0) this.#finish();
  }

  #dispatch(item: T): void {
    const lanes = this.#lanes;
    for (let i = 0; i < lanes.length; i++) (lanes[i] as SubscriberLane<T>).deliver(item);
    this.#delivered += 1;
  }

  #finish(): void {
    this.#state = COMPLETED;
    for (const handler of this.#completeHandlers) this.#safely(handler);
    this.#completeHandlers = [];
    const lanes = this.#lanes;
    this.#lanes = [];
    for (const lane of lanes) lane.complete();
    this.#runTeardowns();
  }

  #expired(entry: ParkedEntry<T>): void {
    this.#dropped += 1;
    entry.settle?.(false);
    if (this.#state === COMPLETING) this.#requestDrain();
  }

  #removeLane(lane: SubscriberLane<T>): void {
    const index = this.#lanes.indexOf(lane);
    if (index < 0) return;
    lane.dispose();
    this.#lanes = this.#lanes.filter((other) => other !== lane);
    if (lane.blocking) {
      lane.blocking = false;
      this.#blocking -= 1;
    }
    this.#requestDrain();
  }

  #reportError(error: unknown, item: T | undefined): void {
    const handlers = this.#errorHandlers;
    if (handlers.length === 0) {
      reportUnhandled(error);
      return;
    }
    for (const handler of handlers) {
      try {
        handler(error, item);
      } catch (handlerError) {
        reportUnhandled(handlerError);
      }
    }
  }

  #safely(handler: () => void): void {
    try {
      handler();
    } catch (error) {
      this.#reportError(error, undefined);
    }
  }

  #validate(item: T): T {
    const result = (this.#schema as ItemSchema<T>).safeParse(item);
    if (result.success) return result.data;
    const issues = result.error.issues.map((issue) => (issue.path.length === 0 ? issue.message : `${issue.path.map(String).join('.')}: ${issue.message}`));
    throw new ChannelItemError(this.id, item, issues, result.error);
  }

  #forward(item: T): Promise<unknown> | undefined {
    if (this.#state !== OPEN) return undefined;
    if (this.#strategy !== BackpressureStrategy.BLOCK || (!this.#buffer.full && this.#parked.size === 0)) {
      this.emit(item);
      return undefined;
    }
    return this.offer(item);
  }

  #derive<R>(suffix: string, feed: (item: T, child: StreamingChannel<R>) => unknown): StreamingChannel<R> {
    const child = new StreamingChannel<R>({ ...this.#settings, id: `${this.id}-${suffix}` });
    const link = this.subscribe({
      next: (item) => feed(item, child) as Promise<unknown> | undefined,
      complete: () => (this.#state === CLOSED ? child.close() : child.complete()),
    });
    child.#teardowns.push(() => link.unsubscribe());
    return child;
  }

  #runTeardowns(): void {
    const teardowns = this.#teardowns;
    this.#teardowns = [];
    for (const teardown of teardowns) teardown();
  }

  #metricsStream(sampleTime: number): Observable<ChannelMetrics> {
    return new Observable<ChannelMetrics>((subscriber) => {
      let last = this.metrics();
      subscriber.next(last);
      if (this.#state === COMPLETED || this.#state === CLOSED) {
        subscriber.complete();
        return undefined;
      }
      return interval(sampleTime, this.#scheduler).subscribe(() => {
        const current = this.metrics();
        if (!sameCounters(last, current)) subscriber.next((last = current));
        if (this.#state === COMPLETED || this.#state === CLOSED) subscriber.complete();
      });
    });
  }
}

function sameCounters(a: ChannelMetrics, b: ChannelMetrics): boolean {
  return (
    a.emitted === b.emitted &&
    a.delivered === b.delivered &&
    a.dropped === b.dropped &&
    a.bufferUsed === b.bufferUsed &&
    a.pendingOffers === b.pendingOffers &&
    a.subscriberCount === b.subscriberCount &&
    a.subscriberDropped === b.subscriberDropped &&
    a.completed === b.completed &&
    a.closed === b.closed
  );
}

function reportUnhandled(error: unknown): void {
  const report = config.onUnhandledError;
  if (report !== null && report !== undefined) report(error);
  else
    queueMicrotask(() => {
      throw error;
    });
}
