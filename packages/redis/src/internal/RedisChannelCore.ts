import { ConfigError, reportUnhandledError } from '@rxagents/core';
import { type ChannelHandler, ChannelClosedError, ChannelItemError, type ChannelMetrics, type ChannelObserver, type ItemSchema } from '@rxagents/streaming';
import type { RedisClient } from '../types/RedisClient';
import { distinctUntilChanged, map, Observable, Subscription, takeWhile, timer } from 'rxjs';
import { z } from 'zod';
import type { RedisChannel } from '../types/RedisChannel';
import { channelKeys, type ChannelKeys } from './channelKeys';
import { CHANNEL_PROTOCOL_VERSION } from './channelProtocol';
import { readView } from './channelView';
import { startConsumer } from './ChannelConsumer';
import { ChannelProducer, type ChannelState, type OfferSettings } from './ChannelProducer';
import { channelMetrics } from './channelMetrics';
import { OutageReports } from './OutageReports';
import { pullIterator } from './pullIterator';

const observableKey: string | symbol = (typeof Symbol === 'function' && (Symbol as { observable?: symbol }).observable) || '@@observable';

export interface ChannelConfig<T> extends OfferSettings {
  readonly prefix: string;
  readonly leaseMs: number;
  readonly metricsSampleTime: number;
  readonly schema: ItemSchema<T> | undefined;
}

const JsonSchema = z.json();

/** {@link RedisChannel}: a producer (this process's offers) and any number of consumers, over one stream. */
export class RedisChannelCore<T> implements RedisChannel<T> {
  readonly metrics$: Observable<ChannelMetrics>;
  readonly #keys: ChannelKeys;
  readonly #producer: ChannelProducer;
  readonly #consumers = new Set<Subscription>();
  readonly #errorHandlers = new Set<(error: unknown, item: T | undefined) => void>();
  #delivered = 0;
  /** Of an outage, only the first failure is reported. */
  readonly #outages: OutageReports;

  static {
    Object.defineProperty(this.prototype, observableKey, {
      value: function (this: RedisChannelCore<unknown>) {
        return this.asObservable();
      },
    });
  }

  constructor(
    private readonly redis: RedisClient,
    readonly id: string,
    private readonly config: ChannelConfig<T>,
  ) {
    this.#keys = channelKeys(config.prefix, id);
    this.#outages = new OutageReports(redis, (error) => this.#handle(error, undefined));
    this.#producer = new ChannelProducer(redis, { ...config, id, keys: this.#keys });
    this.metrics$ = timer(0, config.metricsSampleTime, config.scheduler).pipe(
      map(() => this.metrics()),
      distinctUntilChanged((a, b) => JSON.stringify(a) === JSON.stringify(b)),
      takeWhile((metrics) => !(metrics.completed || metrics.closed || metrics.errored), true),
    );
  }

  offer(item: T): Promise<boolean> {
    try {
      return this.#producer.offer(this.#checked(item));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  emit(item: T): boolean {
    if (this.#producer.state !== 'open') throw this.#producer.closedError();
    this.#producer.offer(this.#checked(item)).catch((error: unknown) => {
      // Refused because the channel ended meanwhile: counted as dropped, as a local channel's parked item.
      if (!(error instanceof ChannelClosedError)) this.#report(error, item);
    });
    return true;
  }

  emitAll(items: Iterable<T>): number {
    if (typeof (items as Partial<Iterable<T>> | null)?.[Symbol.iterator] !== 'function') {
      throw new ConfigError(`redisChannel ${this.id}`, [{ path: 'items', rule: 'must be an iterable (an array, a Set, a generator)', received: items }]);
    }
    let queued = 0;
    for (const item of items) if (this.emit(item)) queued += 1;
    return queued;
  }

  complete(): Promise<void> {
    return this.#producer.end({ v: CHANNEL_PROTOCOL_VERSION, kind: 'complete' });
  }

  error(error: unknown): Promise<void> {
    return this.#producer.end(ChannelProducer.errorEnd(error), error);
  }

  close(): Promise<void> {
    return this.#producer.end({ v: CHANNEL_PROTOCOL_VERSION, kind: 'close' });
  }

  metrics(): ChannelMetrics {
    const state: ChannelState = this.#producer.shownState;
    return channelMetrics({
      channelId: this.id,
      emitted: this.#producer.emitted,
      delivered: this.#delivered,
      dropped: this.#producer.dropped,
      bufferUsed: this.#producer.backlog,
      bufferCapacity: this.config.bufferSize,
      pendingOffers: this.#producer.pendingOffers,
      subscriberCount: this.#consumers.size,
      subscriberDropped: 0,
      completed: state === 'completed',
      closed: state === 'closed',
      errored: state === 'errored',
    });
  }

  async sharedMetrics(): Promise<ChannelMetrics> {
    const [counters, view] = await Promise.all([this.redis.hgetall(this.#keys.shared), readView(this.redis, this.#keys)]);
    // Each process's total is a field `<name>:<token>`; a field `<name>` alone is a count of an earlier version.
    const count = (name: string): number =>
      Object.entries(counters).reduce((sum, [field, value]) => (field === name || field.startsWith(`${name}:`) ? sum + Number(value) : sum), 0);
    return channelMetrics({
      channelId: this.id,
      emitted: count('emitted'),
      delivered: count('delivered'),
      dropped: count('dropped'),
      bufferUsed: view.backlog,
      bufferCapacity: this.config.bufferSize,
      pendingOffers: 0,
      subscriberCount: view.live,
      subscriberDropped: 0,
      completed: view.end?.kind === 'complete',
      closed: view.end?.kind === 'close',
      errored: view.end?.kind === 'error',
    });
  }

  subscribe(subscriber: ChannelHandler<T> | Partial<ChannelObserver<T>>): Subscription {
    if (typeof subscriber === 'function') return this.#consume({ next: subscriber });
    if (typeof subscriber !== 'object' || subscriber === null) throw new ConfigError('RedisChannel subscribe', [{ path: 'subscriber', rule: 'must be a function or an observer object', received: subscriber }]);
    return this.#consume(subscriber);
  }

  asObservable(): Observable<T> {
    return new Observable<T>((subscriber) =>
      this.#consume({ next: (item) => subscriber.next(item), error: (error) => subscriber.error(error), complete: () => subscriber.complete() }),
    );
  }

  iterate(): AsyncIterableIterator<T> {
    return pullIterator<T>((observer) => this.#consume(observer));
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<T> {
    return this.iterate();
  }

  onError(handler: (error: unknown, item: T | undefined) => void): Subscription {
    this.#errorHandlers.add(handler);
    return new Subscription(() => this.#errorHandlers.delete(handler));
  }

  #consume(observer: Partial<ChannelObserver<T>>): Subscription {
    const { redis, config } = this;
    const subscription = startConsumer<T>(
      {
        redis,
        id: this.id,
        keys: this.#keys,
        leaseMs: config.leaseMs,
        pollMs: config.pollMs,
        retentionMs: config.retentionMs,
        scheduler: config.scheduler,
        schema: config.schema,
        delivered: () => {
          this.#delivered += 1;
          redis.hset(this.#keys.shared, `delivered:${this.#producer.token}`, this.#delivered).catch((error: unknown) => this.#report(error, undefined));
        },
        dropped: (count) => this.#producer.countDropped(count),
        ended: (end) => this.#producer.learn(end),
        report: (error, item) => this.#report(error, item),
        left: (consumer) => this.#consumers.delete(consumer),
      },
      observer,
    );
    if (!subscription.closed) this.#consumers.add(subscription);
    return subscription;
  }

  /** The item as it will be stored: it passed the item schema and is JSON data. */
  #checked(item: T): T {
    if (this.#producer.state !== 'open') throw this.#producer.closedError();
    const schema = this.config.schema;
    const parsed = schema === undefined ? { success: true as const, data: item } : schema.safeParse(item);
    if (!parsed.success) {
      const issues = parsed.error.issues.map((issue) => (issue.path.length === 0 ? issue.message : `${issue.path.map(String).join('.')}: ${issue.message}`));
      throw new ChannelItemError(this.id, item, issues, parsed.error);
    }
    if (!JsonSchema.safeParse(parsed.data).success) throw new ChannelItemError(this.id, item, ['must be JSON data (items cross processes as JSON)']);
    return parsed.data;
  }

  #report(error: unknown, item: T | undefined): void {
    if (item === undefined) this.#outages.report(error);
    else this.#handle(error, item);
  }

  #handle(error: unknown, item: T | undefined): void {
    if (this.#errorHandlers.size === 0) return reportUnhandledError(error);
    for (const handler of this.#errorHandlers) {
      try {
        handler(error, item);
      } catch (thrown) {
        reportUnhandledError(thrown);
      }
    }
  }
}
