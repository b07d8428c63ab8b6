import { randomUUID } from 'node:crypto';
import { BackpressureStrategy } from '@rxagents/streaming';
import { redisChannel } from '../src';
import { describeRedis } from './support/describeRedis';
import { waitUntil } from './support/waitUntil';

jest.setTimeout(60_000);

/** A promise the test resolves: a consumer handler returning it holds its item until then. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open: () => void = () => undefined;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

describeRedis('redisChannel across a Redis restart', (server) => {
  it('BLOCK: a consumer receives every item exactly once and in order while Redis restarts mid-stream (AOF on)', async () => {
    const prefix = `chr-${randomUUID()}`;
    const id = randomUUID();
    const count = 300;
    const options = { prefix, backpressure: BackpressureStrategy.BLOCK, bufferSize: 8, offerTimeout: Infinity, pollMs: 5 } as const;
    const producer = redisChannel<number>(server().client(), id, options);
    const consumer = redisChannel<number>(server().client(), id, options);
    const seen: number[] = [];
    // The consumer holds item 100 until Redis is going down and item 290 until it is back up, so items
    // flow while Redis stops and starts, and some are offered only after it is back.
    const going = gate();
    const back = gate();
    const handler = (item: number): Promise<void> | undefined => {
      seen.push(item);
      return item === 100 ? going.promise : item === count - 10 ? back.promise : undefined;
    };
    const completed = new Promise<void>((resolve, reject) => consumer.subscribe({ next: handler, complete: resolve, error: reject }));
    await waitUntil('the consumer is registered', async () => (await consumer.sharedMetrics()).subscriberCount === 1);
    const refused: number[] = [];
    const produced = (async () => {
      for (let n = 0; n < count; n++) if (!(await producer.offer(n))) refused.push(n);
      await producer.complete();
    })();
    await waitUntil('the consumer holds item 100', () => seen.length === 101);
    const restarted = server().restart();
    going.open();
    await restarted;
    back.open();
    await produced;
    await completed;
    expect(refused).toEqual([]);
    expect(seen).toEqual(Array.from({ length: count }, (_, n) => n));
    expect(producer.metrics()).toMatchObject({ emitted: count, dropped: 0, completed: true });
    expect(consumer.metrics()).toMatchObject({ delivered: count, dropped: 0, completed: true });
  });
});
