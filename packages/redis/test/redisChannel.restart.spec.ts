import { randomUUID } from 'node:crypto';
import { BackpressureStrategy } from '@rxagents/streaming';
import { Redis } from 'ioredis';
import { redisChannel } from '../src';
import { type CuttingProxy, startCuttingProxy } from './support/cuttingProxy';
import { describeRedis } from './support/describeRedis';
import { startGatedProxy } from './support/gatedProxy';
import { waitUntil } from './support/waitUntil';

jest.setTimeout(60_000);

/** A promise the test resolves: a consumer handler returning it holds its item until then. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open: () => void = () => undefined;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

describeRedis('redisChannel across a Redis restart', (server) => {
  it('BLOCK: a consumer receives every item exactly once and in order while Redis restarts mid-stream (AOF on), four times', async () => {
    const prefix = `chr-${randomUUID()}`;
    const id = randomUUID();
    const count = 500;
    const restartsAt = [100, 200, 300, 400];
    const options = { prefix, backpressure: BackpressureStrategy.BLOCK, bufferSize: 8, offerTimeout: Infinity, pollMs: 5 } as const;
    const producer = redisChannel<number>(server().client(), id, options);
    const consumer = redisChannel<number>(server().client(), id, options);
    const seen: number[] = [];
    // The consumer holds item 100 until Redis is going down and item 150 until it is back up (and so on
    // for each restart), so items flow while Redis stops and starts, and some are offered after it is back.
    const going = new Map(restartsAt.map((item) => [item, gate()]));
    const back = new Map(restartsAt.map((item) => [item + 50, gate()]));
    const handler = (item: number): Promise<void> | undefined => {
      seen.push(item);
      return (going.get(item) ?? back.get(item))?.promise;
    };
    const completed = new Promise<void>((resolve, reject) => consumer.subscribe({ next: handler, complete: resolve, error: reject }));
    await waitUntil('the consumer is registered', async () => (await consumer.sharedMetrics()).subscriberCount === 1);
    const refused: number[] = [];
    const produced = (async () => {
      for (let n = 0; n < count; n++) if (!(await producer.offer(n))) refused.push(n);
      await producer.complete();
    })();
    for (const item of restartsAt) {
      await waitUntil(`the consumer holds item ${item}`, () => seen.includes(item));
      const restarted = server().restart();
      going.get(item)?.open();
      await restarted;
      back.get(item + 50)?.open();
    }
    await produced;
    await completed;
    expect(refused).toEqual([]);
    expect(seen).toEqual(Array.from({ length: count }, (_, n) => n));
    expect(producer.metrics()).toMatchObject({ emitted: count, dropped: 0, completed: true });
    expect(consumer.metrics()).toMatchObject({ delivered: count, dropped: 0, completed: true });
  });

  describe('when a reply is lost and ioredis sends the command again', () => {
    let proxy: CuttingProxy;
    let producerClient: Redis;
    beforeEach(async () => {
      proxy = await startCuttingProxy(server().port);
      producerClient = new Redis({ port: proxy.port, host: '127.0.0.1' });
    });
    afterEach(async () => {
      producerClient.disconnect();
      await proxy.close();
    });
    const sides = (prefix: string, id: string) => {
      const options = { prefix, backpressure: BackpressureStrategy.BLOCK, bufferSize: 8, offerTimeout: Infinity, pollMs: 5 } as const;
      const consumer = redisChannel<number>(server().client(), id, options);
      const seen: number[] = [];
      let done = false;
      consumer.subscribe({ next: (item) => void seen.push(item), complete: () => (done = true) });
      return { producer: redisChannel<number>(producerClient, id, options), consumer, seen, completed: () => done };
    };

    it('an item whose XADD Redis stored before the connection broke is stored once', async () => {
      const prefix = `chc-${randomUUID()}`;
      const id = randomUUID();
      const redis = server().client();
      const items = `${prefix}:channel:{${id}}:items`;
      const { producer, consumer, seen, completed } = sides(prefix, id);
      await waitUntil('the consumer is registered', async () => (await consumer.sharedMetrics()).subscriberCount === 1);
      let cut: Promise<void> = Promise.resolve();
      for (let n = 0; n < 20; n++) {
        if (n === 10) {
          const [before] = await redis.xrevrange(items, '+', '-', 'COUNT', 1);
          cut = proxy.cutAfter('XADD', async () => (await redis.xrevrange(items, '+', '-', 'COUNT', 1))[0]?.[0] !== before?.[0]);
        }
        expect(await producer.offer(n)).toBe(true);
      }
      await cut;
      await producer.complete();
      await waitUntil('the consumer completed', completed);
      expect(seen).toEqual(Array.from({ length: 20 }, (_, n) => n));
      expect(producer.metrics()).toMatchObject({ emitted: 20, dropped: 0 });
    });

    it('the shared counters count an item once when the reply to their write was lost', async () => {
      const prefix = `chc-${randomUUID()}`;
      const id = randomUUID();
      const redis = server().client();
      const shared = `${prefix}:channel:{${id}}:shared`;
      const { producer, consumer, completed } = sides(prefix, id);
      await waitUntil('the consumer is registered', async () => (await consumer.sharedMetrics()).subscriberCount === 1);
      for (let n = 0; n < 5; n++) expect(await producer.offer(n)).toBe(true);
      // Read on a direct connection: the producer's one is held by the proxy while it loses the reply.
      const emitted = async (): Promise<number> =>
        Object.entries(await redis.hgetall(shared)).reduce((sum, [field, value]) => (field === 'emitted' || field.startsWith('emitted:') ? sum + Number(value) : sum), 0);
      await waitUntil('five items are counted', async () => (await emitted()) === 5);
      const cut = proxy.cutAfter('HSET', async () => (await emitted()) >= 6 || (await redis.hexists(shared, 'end')) === 1);
      for (let n = 5; n < 10; n++) expect(await producer.offer(n)).toBe(true);
      await cut;
      await producer.complete();
      await waitUntil('the consumer completed', completed);
      await waitUntil('every delivery is counted', async () => (await consumer.sharedMetrics()).delivered === 10);
      expect(await consumer.sharedMetrics()).toMatchObject({ emitted: 10, delivered: 10, dropped: 0 });
    });

    it('an end whose claim Redis stored before the connection broke is still written, and consumers complete', async () => {
      const prefix = `chc-${randomUUID()}`;
      const id = randomUUID();
      const redis = server().client();
      const shared = `${prefix}:channel:{${id}}:shared`;
      const { producer, consumer, seen, completed } = sides(prefix, id);
      await waitUntil('the consumer is registered', async () => (await consumer.sharedMetrics()).subscriberCount === 1);
      for (let n = 0; n < 5; n++) expect(await producer.offer(n)).toBe(true);
      const cut = proxy.cutAfter('HSETNX', async () => (await redis.hexists(shared, 'ender')) === 1 || (await redis.hexists(shared, 'end')) === 1);
      await producer.complete();
      await cut;
      await waitUntil('the consumer completed', completed);
      expect(seen).toEqual([0, 1, 2, 3, 4]);
      expect(producer.metrics()).toMatchObject({ emitted: 5, completed: true });
    });
  });

  it('complete() that failed while Redis was away can be called again, and then ends the channel for its consumers', async () => {
    const prefix = `chr-${randomUUID()}`;
    const id = randomUUID();
    const proxy = await startGatedProxy(server().port);
    const producerClient = new Redis({ port: proxy.port, host: '127.0.0.1', maxRetriesPerRequest: 0, retryStrategy: () => 20 });
    producerClient.on('error', () => undefined);
    try {
      const producer = redisChannel<number>(producerClient, id, { prefix });
      const consumer = redisChannel<number>(server().client(), id, { prefix });
      const seen: number[] = [];
      const completed = new Promise<void>((resolve, reject) => consumer.subscribe({ next: (item) => void seen.push(item), complete: resolve, error: reject }));
      expect(await producer.offer(1)).toBe(true);
      proxy.shut();
      await expect(producer.complete()).rejects.toThrow();
      proxy.open();
      await waitUntil('the producer has reconnected', () => producerClient.status === 'ready');
      await producer.complete();
      await completed;
      expect(seen).toEqual([1]);
      await expect(producer.offer(2)).rejects.toThrow(/completed/);
    } finally {
      producerClient.disconnect();
      await proxy.close();
    }
  });
});
