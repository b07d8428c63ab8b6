import { randomUUID } from 'node:crypto';
import { ConfigError } from '@rxagents/core';
import { BackpressureStrategy, BufferOverflowError, ChannelClosedError, ChannelItemError } from '@rxagents/streaming';
import type { Redis } from 'ioredis';
import { firstValueFrom, from, type Subscription, take, toArray } from 'rxjs';
import { z } from 'zod';
import { type RedisChannel, redisChannel, type RedisChannelOptions, RemoteChannelError } from '../src';
import { describeRedis } from './support/describeRedis';
import { countingScheduler, pacedReader } from './support/channelTesting';
import { waitUntil } from './support/waitUntil';

jest.setTimeout(30_000);

describeRedis('redisChannel', (server) => {
  let prefix: string;
  let id: string;
  let redis: Redis;
  // Two sides of one channel, each with its own client, as two processes would have.
  const side = <T>(options: RedisChannelOptions<T> = {}) => track(redisChannel<T>(server().client(), id, { prefix, pollMs: 5, ...options }));
  // Every consumer a test starts leaves after it, as a process would on exit.
  const subscriptions: Subscription[] = [];
  const track = <T>(channel: RedisChannel<T>): RedisChannel<T> => {
    const subscribe = channel.subscribe.bind(channel);
    channel.subscribe = (subscriber) => {
      const subscription = subscribe(subscriber);
      subscriptions.push(subscription);
      return subscription;
    };
    return channel;
  };
  afterEach(() => {
    for (const subscription of subscriptions.splice(0)) subscription.unsubscribe();
  });
  const consumers = () => redis.hlen(`${prefix}:channel:{${id}}:consumers`);
  beforeEach(() => {
    prefix = `ch-${randomUUID()}`;
    id = randomUUID();
    redis = server().client();
  });

  it('delivers every item in order to every consumer, then completes them', async () => {
    const producer = side<string>();
    const consumer = side<string>();
    const first = firstValueFrom(consumer.asObservable().pipe(toArray()));
    const second: string[] = [];
    const secondDone = new Promise<void>((resolve) => consumer.subscribe({ next: (item) => void second.push(item), complete: resolve }));
    await waitUntil('both consumers are registered', async () => (await consumers()) === 2);
    for (const token of ['The ', 'answer ', 'is ', '42.']) expect(await producer.offer(token)).toBe(true);
    await producer.complete();
    expect(await first).toEqual(['The ', 'answer ', 'is ', '42.']);
    await secondDone;
    expect(second).toEqual(['The ', 'answer ', 'is ', '42.']);
    expect(producer.metrics()).toMatchObject({ emitted: 4, dropped: 0, completed: true });
    expect(consumer.metrics()).toMatchObject({ delivered: 8, dropped: 0, completed: true, subscriberCount: 0 });
    expect((await consumer.sharedMetrics()).toJSON()).toMatchObject({ emitted: 4, delivered: 8, dropped: 0, completed: true, subscriberCount: 0 });
  });

  it.each([null, undefined, 42, {}])('emitAll refuses %p with a ConfigError naming items, emitting nothing', async (bad) => {
    const producer = side<number>();
    expect(() => producer.emitAll(bad as never)).toThrow(ConfigError);
    expect(() => producer.emitAll(bad as never)).toThrow(/^redisChannel .*: items must be an iterable/);
    expect(producer.metrics().emitted).toBe(0);
    await producer.close();
  });

  it('keeps items offered before any consumer for the first one, as a local channel buffers them', async () => {
    const producer = side<number>();
    producer.emitAll([1, 2, 3]);
    await producer.complete();
    const items: number[] = [];
    for await (const item of side<number>()) items.push(item);
    expect(items).toEqual([1, 2, 3]);
  });

  it('BLOCK: an offer waits while the slowest consumer is bufferSize entries behind and resolves once it moves', async () => {
    const scheduler = countingScheduler();
    const producer = side<number>({ backpressure: BackpressureStrategy.BLOCK, bufferSize: 2, offerTimeout: Infinity, scheduler });
    const reader = pacedReader<number>();
    side<number>().subscribe(reader.handler);
    await waitUntil('the consumer is registered', async () => (await consumers()) === 1);
    expect(await producer.offer(1)).toBe(true);
    expect(await producer.offer(2)).toBe(true);
    let third: boolean | undefined;
    const offered = producer.offer(3).then((accepted) => (third = accepted));
    const polls = scheduler.scheduled;
    await waitUntil('the offer has polled five times', () => scheduler.scheduled >= polls + 5);
    expect(third).toBeUndefined();
    expect(producer.metrics()).toMatchObject({ pendingOffers: 1, bufferUsed: 2, emitted: 2 });
    expect(reader.seen).toEqual([1]);
    reader.release();
    await offered;
    expect(third).toBe(true);
    reader.releaseAll();
    await waitUntil('the consumer has all three', () => reader.seen.length === 3);
    expect(reader.seen).toEqual([1, 2, 3]);
  });

  it('BLOCK: an offer that waits past offerTimeout resolves false and counts as dropped', async () => {
    const producer = side<number>({ backpressure: BackpressureStrategy.BLOCK, bufferSize: 1, offerTimeout: 50 });
    const reader = pacedReader<number>();
    side<number>().subscribe(reader.handler);
    await waitUntil('the consumer is registered', async () => (await consumers()) === 1);
    expect(await producer.offer(1)).toBe(true);
    expect(await producer.offer(2)).toBe(false);
    expect(producer.metrics()).toMatchObject({ emitted: 1, dropped: 1, pendingOffers: 0 });
  });

  it('BLOCK: past maxPendingOffers waiting offers, an offer is dropped at once, or rejected with strictPendingOffers', async () => {
    const options = { backpressure: BackpressureStrategy.BLOCK, bufferSize: 1, offerTimeout: Infinity, maxPendingOffers: 1 };
    const producer = side<number>(options);
    const strict = side<number>({ ...options, strictPendingOffers: true });
    const reader = pacedReader<number>();
    side<number>().subscribe(reader.handler);
    await waitUntil('the consumer is registered', async () => (await consumers()) === 1);
    expect(await producer.offer(1)).toBe(true);
    const waiting = [producer.offer(2), producer.offer(3)];
    expect(await producer.offer(4)).toBe(false);
    expect(producer.metrics()).toMatchObject({ pendingOffers: 2, dropped: 1 });
    const strictWaiting = [strict.offer(5), strict.offer(6)];
    await expect(strict.offer(7)).rejects.toBeInstanceOf(BufferOverflowError);
    reader.releaseAll();
    expect(await Promise.all([...waiting, ...strictWaiting])).toEqual([true, true, true, true]);
    await waitUntil('the consumer has every stored item', () => reader.seen.length === 5);
    expect([...reader.seen].sort()).toEqual([1, 2, 3, 5, 6]);
  });

  it('DROP_NEWEST: an offer beyond the slowest consumer’s bufferSize is refused and counted', async () => {
    const producer = side<number>({ backpressure: BackpressureStrategy.DROP_NEWEST, bufferSize: 2 });
    const reader = pacedReader<number>();
    side<number>().subscribe(reader.handler);
    await waitUntil('the consumer is registered', async () => (await consumers()) === 1);
    expect(await producer.offer(1)).toBe(true);
    expect(await producer.offer(2)).toBe(true);
    expect(await producer.offer(3)).toBe(false);
    expect(producer.metrics()).toMatchObject({ emitted: 2, dropped: 1 });
    reader.releaseAll();
    await waitUntil('the consumer has caught up', async () => (await producer.sharedMetrics()).bufferUsed === 0);
    expect(await producer.offer(4)).toBe(true);
    await waitUntil('the consumer has item 4', () => reader.seen.length === 3);
    expect(reader.seen).toEqual([1, 2, 4]);
    expect((await producer.sharedMetrics()).toJSON()).toMatchObject({ emitted: 3, dropped: 1, delivered: 3 });
    expect((await producer.sharedMetrics()).dropRate()).toBeCloseTo(100 / 3);
  });

  it('ERROR: an offer beyond the slowest consumer’s bufferSize fails with BufferOverflowError', async () => {
    const producer = side<number>({ backpressure: BackpressureStrategy.ERROR, bufferSize: 2 });
    side<number>().subscribe(pacedReader<number>().handler);
    await waitUntil('the consumer is registered', async () => (await consumers()) === 1);
    await producer.offer(1);
    await producer.offer(2);
    const overflow = await producer.offer(3).catch((error: unknown) => error);
    expect(overflow).toBeInstanceOf(BufferOverflowError);
    expect(overflow).toMatchObject({ channelId: id, capacity: 2, retryable: true });
    expect(producer.metrics()).toMatchObject({ emitted: 2, dropped: 1 });
  });

  it('DROP_OLDEST: the stream keeps bufferSize entries; a consumer that fell behind counts what it missed as dropped', async () => {
    const producer = side<number>({ bufferSize: 3 });
    const consumer = side<number>();
    const reader = pacedReader<number>();
    consumer.subscribe(reader.handler);
    await waitUntil('the consumer is registered', async () => (await consumers()) === 1);
    await producer.offer(1);
    await waitUntil('the consumer holds item 1', () => reader.seen.length === 1);
    for (let n = 2; n <= 10; n++) expect(await producer.offer(n)).toBe(true);
    expect(await redis.xlen(`${prefix}:channel:{${id}}:items`)).toBe(3);
    reader.releaseAll();
    await waitUntil('the consumer has read to the end', () => reader.seen.length === 4);
    expect(reader.seen).toEqual([1, 8, 9, 10]);
    expect(consumer.metrics()).toMatchObject({ delivered: 4, dropped: 6 });
    expect(producer.metrics()).toMatchObject({ emitted: 10, dropped: 0 });
    expect(await producer.sharedMetrics()).toMatchObject({ emitted: 10, delivered: 4, dropped: 6 });
  });

  it('error(): consumers receive the items before it, then a RemoteChannelError; other producers are refused', async () => {
    const producer = side<string>();
    const other = side<string>();
    const consumer = side<string>();
    const items: string[] = [];
    const failure = new Promise<unknown>((resolve) => consumer.subscribe({ next: (item) => void items.push(item), error: resolve }));
    await waitUntil('the consumer is registered', async () => (await consumers()) === 1);
    producer.emitAll(['Paris', 'is']);
    await producer.error(new Error('model unavailable'));
    const error = await failure;
    expect(items).toEqual(['Paris', 'is']);
    expect(error).toBeInstanceOf(RemoteChannelError);
    expect(error).toMatchObject({ channelId: id, remote: { name: 'Error', message: 'model unavailable' } });
    const refused = await other.offer('late').catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ChannelClosedError);
    expect(refused).toMatchObject({ state: 'errored' });
    expect(other.metrics().errored).toBe(true);
    expect(consumer.metrics().errored).toBe(true);
  });

  it('close(): consumers skip what they have not read (counted as dropped) and complete; complete() after it is ignored', async () => {
    const producer = side<number>();
    const consumer = side<number>();
    const reader = pacedReader<number>();
    const completed = new Promise<void>((resolve) => consumer.subscribe({ next: reader.handler, complete: resolve }));
    await waitUntil('the consumer is registered', async () => (await consumers()) === 1);
    await producer.offer(1);
    await waitUntil('the consumer holds item 1', () => reader.seen.length === 1);
    for (const n of [2, 3, 4]) await producer.offer(n);
    await producer.close();
    await side<number>().complete();
    reader.releaseAll();
    await completed;
    expect(reader.seen).toEqual([1]);
    expect(consumer.metrics()).toMatchObject({ delivered: 1, dropped: 3, closed: true });
    expect(producer.metrics()).toMatchObject({ emitted: 4, closed: true });
    expect(() => producer.emit(5)).toThrow(ChannelClosedError);
  });

  it('skips malformed entries and invalid items, reports them to onError, and goes on', async () => {
    const items = `${prefix}:channel:{${id}}:items`;
    const producer = side<string>({ schema: z.string() });
    const consumer = side<string>({ schema: z.string() });
    const errors: unknown[] = [];
    consumer.onError((error) => errors.push(error));
    const received: string[] = [];
    consumer.subscribe((item) => void received.push(item));
    await waitUntil('the consumer is registered', async () => (await consumers()) === 1);
    await redis.xadd(items, '1-0', 'entry', 'not json');
    await redis.xadd(items, '2-0', 'entry', JSON.stringify({ v: 1, kind: 'rumour' }));
    await redis.xadd(items, '3-0', 'other', 'field');
    await producer.offer('valid');
    await redis.xadd(items, '5-0', 'entry', JSON.stringify({ v: 1, kind: 'item', item: 42 }));
    await redis.xadd(items, '*', 'entry', JSON.stringify({ v: 1, kind: 'item', item: 'foreign id' }));
    await waitUntil('the consumer has read six entries', () => received.length + errors.length === 6);
    expect(received).toEqual(['valid']);
    expect(errors.map((error) => (error as { code?: string }).code)).toEqual([
      'CHANNEL_ENTRY_INVALID',
      'CHANNEL_ENTRY_INVALID',
      'CHANNEL_ENTRY_INVALID',
      'CHANNEL_ITEM_INVALID',
      'CHANNEL_ENTRY_INVALID',
    ]);
    expect(consumer.metrics()).toMatchObject({ delivered: 1, dropped: 5 });
    // The malformed entries are moved to the channel's dead-letter stream, with the reason.
    await waitUntil('the four malformed entries are dead-lettered', async () => (await redis.xlen(`${prefix}:channel:{${id}}:dead`)) === 4);
    const dead = await redis.xrange(`${prefix}:channel:{${id}}:dead`, '-', '+');
    expect(dead.map(([, fields]) => fields[fields.indexOf('entryId') + 1])).toEqual(['1-0', '2-0', '3-0', expect.stringMatching(/^\d{13}-0$/)]);
    expect(dead.every(([, fields]) => fields.includes('reason'))).toBe(true);
    expect((await redis.xrange(items, '-', '+')).map(([entryId]) => entryId)).toEqual(['4-0', '5-0']);
  });

  it('dead-letters an entry something else added (XADD *) and delivers every later item, then completes', async () => {
    const items = `${prefix}:channel:{${id}}:items`;
    const producer = side<number>();
    const consumer = side<number>();
    const errors: unknown[] = [];
    consumer.onError((error) => errors.push(error));
    const received = firstValueFrom(consumer.asObservable().pipe(toArray()));
    await waitUntil('the consumer is registered', async () => (await consumers()) === 1);
    for (const item of [1, 2, 3]) expect(await producer.offer(item)).toBe(true);
    await redis.xadd(items, '*', 'foo', 'bar');
    for (const item of [4, 5, 6]) expect(await producer.offer(item)).toBe(true);
    await producer.complete();
    expect(await received).toEqual([1, 2, 3, 4, 5, 6]);
    expect(errors.map((error) => (error as { code?: string }).code)).toEqual(['CHANNEL_ENTRY_INVALID']);
    const dead = await redis.xrange(`${prefix}:channel:{${id}}:dead`, '-', '+');
    expect(dead).toHaveLength(1);
    expect(dead[0]?.[1]).toEqual(expect.arrayContaining(['fields', JSON.stringify(['foo', 'bar'])]));
    expect((await redis.xrange(items, '-', '+')).map(([entryId]) => entryId)).toEqual(['1-0', '2-0', '3-0', '4-0', '5-0', '6-0', '7-0']);
  });

  it('reports a consumer that failed to a subscriber without an error handler through onError', async () => {
    // Another application's key where the channel's stream should be: the consumer cannot start.
    await redis.set(`${prefix}:channel:{${id}}:items`, 'not a stream');
    const channel = side<string>();
    const errors: unknown[] = [];
    channel.onError((error) => errors.push(error));
    const subscription = channel.subscribe(() => undefined);
    await waitUntil('the failure is reported', () => errors.length > 0);
    expect(String(errors[0])).toMatch(/WRONGTYPE/);
    expect(subscription.closed).toBe(true);
  });

  it("reports an observer's error handler that throws to onError, as it does a throwing complete handler", async () => {
    // A client whose server is gone and which does not reconnect: the consumer's first command fails.
    const gone = server().client({ lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    gone.on('error', () => undefined);
    gone.disconnect();
    const channel = redisChannel<string>(gone, id, { prefix });
    const errors: unknown[] = [];
    channel.onError((error) => errors.push(error));
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const seen: unknown[] = [];
      channel.subscribe({
        next: () => undefined,
        error: (error) => {
          seen.push(error);
          throw new Error('the handler failed');
        },
      });
      await waitUntil('the handler failure is reported', () => errors.some((error) => error instanceof Error && error.message === 'the handler failed'));
      expect(seen).toHaveLength(1);
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  it('refuses items that fail the item schema or are not JSON data, at offer and emit', async () => {
    const channel = side<unknown>({ schema: z.number() });
    await expect(channel.offer('seven')).rejects.toBeInstanceOf(ChannelItemError);
    const plain = side<unknown>();
    expect(() => plain.emit(() => 1)).toThrow(ChannelItemError);
    expect(() => plain.emit(10n)).toThrow(ChannelItemError);
    expect(plain.metrics().emitted).toBe(0);
  });

  it('metrics$ emits snapshots while the channel runs and completes when it has ended', async () => {
    const channel = side<number>({ metricsSampleTime: 5 });
    const snapshots = firstValueFrom(channel.metrics$.pipe(toArray()));
    await channel.offer(1);
    await channel.complete();
    const all = await snapshots;
    expect(all[0]?.emitted).toBe(0);
    expect(all.at(-1)).toMatchObject({ emitted: 1, completed: true });
  });

  it('works with RxJS: from(channel) is a consumer', async () => {
    const producer = side<number>();
    const firstTwo = firstValueFrom(from(side<number>()).pipe(take(2), toArray()));
    await waitUntil('the consumer is registered', async () => (await consumers()) === 1);
    producer.emitAll([1, 2, 3]);
    expect(await firstTwo).toEqual([1, 2]);
    await waitUntil('the consumer has left', async () => (await consumers()) === 0);
    // The third item is not left on its way to Redis when the suite stops the server.
    await waitUntil('the producer stored all three', () => producer.metrics().emitted === 3);
  });

  it('names the bad option in a ConfigError', () => {
    expect(() => redisChannel(redis, '', {})).toThrow(ConfigError);
    expect(() => redisChannel(redis, 'ok', { bufferSize: 0 })).toThrow(/bufferSize/);
    expect(() => redisChannel(redis, 'ok', { leaseMs: -1 })).toThrow(/leaseMs/);
    expect(() => redisChannel(redis, 'ok', { leaseMs: 2 })).toThrow(/leaseMs must be at least 30/);
  });
});
