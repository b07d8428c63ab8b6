import { randomUUID } from 'node:crypto';
import { BackpressureStrategy } from '@rxagents/streaming';
import type { Command, Redis } from 'ioredis';
import { type Subscription, VirtualTimeScheduler } from 'rxjs';
import { redisChannel, type RedisChannelOptions } from '../src';
import { pacedReader } from './support/channelTesting';
import { describeRedis } from './support/describeRedis';
import { waitUntil } from './support/waitUntil';

jest.setTimeout(30_000);

/** Counts the commands `client` has sent that Redis has not answered yet. */
function unanswered(client: Redis): () => number {
  let waiting = 0;
  const send = client.sendCommand.bind(client);
  client.sendCommand = (command: Command, ...rest) => {
    waiting += 1;
    const answered = (): void => void (waiting -= 1);
    command.promise.then(answered, answered);
    return send(command, ...rest);
  };
  return () => waiting;
}

/** True once every command counted by `waiting` is answered and no answer led to another one. */
async function quiet(waiting: () => number): Promise<boolean> {
  await new Promise((resolve) => setImmediate(resolve));
  return waiting() === 0;
}

describeRedis('redisChannel leaves nothing behind', (server) => {
  let prefix: string;
  let id: string;
  let redis: Redis;
  const key = (name: 'items' | 'consumers') => `${prefix}:channel:{${id}}:${name}`;
  const side = <T>(options: RedisChannelOptions<T> = {}, client = server().client()) => redisChannel<T>(client, id, { prefix, pollMs: 5, ...options });
  const registered = (count: number) => waitUntil(`${count} consumer(s) registered`, async () => (await redis.hlen(key('consumers'))) === count);
  const subscriptions: Subscription[] = [];
  beforeEach(() => {
    prefix = `chl-${randomUUID()}`;
    id = randomUUID();
    redis = server().client();
  });
  afterEach(() => {
    for (const subscription of subscriptions.splice(0)) subscription.unsubscribe();
  });

  it('a consumer that unsubscribes while it is still registering is not left in the consumers hash', async () => {
    const client = server().client();
    const waiting = unanswered(client);
    const channel = side<string>({}, client);
    channel.subscribe(() => undefined).unsubscribe();
    await waitUntil('the consumer has nothing more to say to Redis', () => quiet(waiting));
    expect(await redis.hgetall(key('consumers'))).toEqual({});
  });

  // A VirtualTimeScheduler that is never flushed holds every action scheduled on it in `actions` until it is cancelled.
  const scheduled = (scheduler: VirtualTimeScheduler): number[] => scheduler.actions.map((action) => action.delay);
  it('a consumer waiting to read again after a failed read cancels that wait when it unsubscribes', async () => {
    const scheduler = new VirtualTimeScheduler();
    const channel = side<string>({ scheduler, pollMs: 60_000 });
    const errors: unknown[] = [];
    channel.onError((error) => errors.push(error));
    const subscription = channel.subscribe(() => undefined);
    subscriptions.push(subscription);
    await registered(1);
    // Another application's key where the channel's stream should be: the consumer's reads fail.
    await redis.set(key('items'), 'not a stream');
    await waitUntil('the failed read is reported', () => errors.length > 0);
    expect(String(errors[0])).toMatch(/WRONGTYPE/);
    expect(scheduled(scheduler)).toContain(60_000);
    subscription.unsubscribe();
    expect(scheduled(scheduler)).toEqual([]);
  });

  it('BLOCK: an offer that stops waiting for room cancels its next poll', async () => {
    const scheduler = new VirtualTimeScheduler();
    const producer = side<number>({ backpressure: BackpressureStrategy.BLOCK, bufferSize: 1, offerTimeout: Infinity, pollMs: 60_000, scheduler });
    subscriptions.push(side<number>().subscribe(pacedReader<number>().handler));
    await registered(1);
    expect(await producer.offer(1)).toBe(true);
    const second = producer.offer(2);
    await waitUntil('the offer waits for room', () => scheduled(scheduler).length > 0);
    await producer.close();
    expect(await second).toBe(false);
    expect(scheduled(scheduler)).toEqual([]);
  });
});
