import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { BackpressureStrategy } from '@rxagents/streaming';
import type { Redis } from 'ioredis';
import { redisChannel, RemoteChannelError } from '../src';
import { countingScheduler, pacedReader } from './support/channelTesting';
import { describeRedis } from './support/describeRedis';
import { killProcess, spawnProcess } from './support/spawnProcess';
import { waitUntil } from './support/waitUntil';

jest.setTimeout(60_000);

describeRedis('redisChannel across processes', (server) => {
  let prefix: string;
  let id: string;
  let redis: Redis;
  const children: ChildProcess[] = [];
  const consumers = () => redis.hlen(`${prefix}:channel:{${id}}:consumers`);
  const spawn = async (script: string, env: Record<string, string>) => {
    const child = await spawnProcess(script, { REDIS_PORT: String(server().port), PREFIX: prefix, CHANNEL: id, ...env });
    children.push(child);
    return child;
  };
  beforeEach(() => {
    prefix = `chp-${randomUUID()}`;
    id = randomUUID();
    redis = server().client();
  });
  afterEach(async () => {
    await Promise.all(children.splice(0).map((child) => killProcess(child)));
  });

  it('a consumer here reads, at its own pace, every item a producer process offers under BLOCK, then its complete', async () => {
    const consumer = redisChannel<number>(server().client(), id, { prefix });
    const reader = pacedReader<number>();
    const completed = new Promise<void>((resolve) => consumer.subscribe({ next: reader.handler, complete: resolve }));
    await waitUntil('the consumer is registered', async () => (await consumers()) === 1);
    await spawn('support/channelProducer.ts', { COUNT: '50', BUFFER: '4', END: 'complete' });
    // The producer may run at most 4 entries ahead of this consumer, which takes one item at a time.
    for (let n = 1; n <= 50; n++) {
      await waitUntil(`the consumer holds item ${n - 1}`, () => reader.seen.length === n);
      expect((await consumer.sharedMetrics()).bufferUsed).toBeLessThanOrEqual(4);
      reader.release();
    }
    await completed;
    expect(reader.seen).toEqual(Array.from({ length: 50 }, (_, n) => n));
    expect(await consumer.sharedMetrics()).toMatchObject({ emitted: 50, delivered: 50, dropped: 0, completed: true });
  });

  it('a producer process’s error() reaches a for-await consumer here after its items', async () => {
    const consumer = redisChannel<number>(server().client(), id, { prefix });
    const items: number[] = [];
    const loop = (async () => {
      for await (const item of consumer) items.push(item);
    })();
    await waitUntil('the consumer is registered', async () => (await consumers()) === 1);
    await spawn('support/channelProducer.ts', { COUNT: '5', BUFFER: '2', END: 'error' });
    const failure = await loop.then(() => undefined, (error: unknown) => error);
    expect(items).toEqual([0, 1, 2, 3, 4]);
    expect(failure).toBeInstanceOf(RemoteChannelError);
    expect(failure).toMatchObject({ remote: { message: 'the model went away' } });
    expect(consumer.metrics().errored).toBe(true);
  });

  it('a consumer process that dies stops holding back BLOCK once its lease has run out', async () => {
    const victim = await spawn('support/channelConsumer.ts', { LEASE_MS: '600' });
    await waitUntil('the consumer process is registered', async () => (await consumers()) === 1);
    const scheduler = countingScheduler();
    const producer = redisChannel<number>(server().client(), id, {
      prefix,
      backpressure: BackpressureStrategy.BLOCK,
      bufferSize: 2,
      offerTimeout: Infinity,
      pollMs: 20,
      scheduler,
    });
    const live = pacedReader<number>();
    live.releaseAll();
    const subscription = redisChannel<number>(server().client(), id, { prefix }).subscribe(live.handler);
    await waitUntil('both consumers are registered', async () => (await consumers()) === 2);

    expect(await producer.offer(1)).toBe(true);
    await waitUntil('the consumer process holds item 1', async () => (await redis.lrange(`${prefix}:test:seen`, 0, -1)).length === 1);
    expect(await producer.offer(2)).toBe(true);
    let third: boolean | undefined;
    const offered = producer.offer(3).then((accepted) => (third = accepted));
    const polls = scheduler.scheduled;
    await waitUntil('the offer has polled five times', () => scheduler.scheduled >= polls + 5);
    // The live consumer has both items; the stalled process holds the channel back.
    expect(live.seen).toEqual([1, 2]);
    expect(third).toBeUndefined();
    expect(producer.metrics().pendingOffers).toBe(1);

    await killProcess(victim, 'SIGKILL');
    await offered;
    expect(third).toBe(true);
    await waitUntil('the live consumer has item 3', () => live.seen.length === 3);
    expect(await producer.sharedMetrics()).toMatchObject({ subscriberCount: 1, emitted: 3 });
    subscription.unsubscribe();
  });
});
