import { randomUUID } from 'node:crypto';
import { defineAgent, invoke } from '@rxagents/core';
import type { Redis, RedisOptions } from 'ioredis';
import { redisChannel, redisEventBus, remoteAgent, serveAgent } from '../src';
import { describeRedis } from './support/describeRedis';
import { servedPerTest } from './support/servedPerTest';
import { waitUntil } from './support/waitUntil';

jest.setTimeout(60_000);

describeRedis('an outage of Redis', (server) => {
  afterEach(() => jest.restoreAllMocks());

  it('is one warning when the connection is lost and one when it is back, per worker and bus, and ioredis prints no unhandled error', async () => {
    const prefix = `ro-${randomUUID()}`;
    const warnings: Array<{ text: string; code: string | undefined }> = [];
    jest.spyOn(process, 'emitWarning').mockImplementation((warning, options) => {
      warnings.push({ text: String(warning), code: typeof options === 'object' ? options.code : undefined });
    });
    const printed = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    // Clients that give up on a command quickly, so that every retry while Redis is away fails and would be reported.
    const quick: RedisOptions = { maxRetriesPerRequest: 1, retryStrategy: () => 50 };
    const client = () => {
      const redis = server().client(quick);
      redis.on('error', () => undefined); // the application's own client: its listener is the application's
      return redis;
    };
    const worker = serveAgent(client(), defineAgent('echo', async (input) => `echo ${input}`), { prefix, leaseCheckMs: 100, claimIdleMs: 1_000 });
    const bus = redisEventBus(client(), { prefix });
    const entries = bus.events$.subscribe();
    const channelErrors: unknown[] = [];
    const channel = redisChannel<string>(client(), randomUUID(), { prefix });
    channel.onError((error) => channelErrors.push(error));
    const consumer = channel.subscribe(() => undefined);
    try {
      await new Promise((resolve) => setTimeout(resolve, 300));
      await server().restart(1_500);
      const of = (code: string) => warnings.filter((warning) => warning.code === code).map((warning) => warning.text);
      await waitUntil('the worker and the bus say that Redis is back', () =>
        [of('RXAGENTS_REDIS_WORKER'), of('RXAGENTS_REDIS_EVENT_BUS')].every((texts) => texts.some((text) => text.includes('reachable again'))),
      );
      // A while after it is back: no more reports come in.
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(of('RXAGENTS_REDIS_WORKER')).toEqual([expect.any(String), expect.stringContaining('Redis is reachable again')]);
      expect(of('RXAGENTS_REDIS_EVENT_BUS')).toEqual([expect.any(String), expect.stringContaining('Redis is reachable again')]);
      expect(channelErrors).toHaveLength(1);
      expect(printed.mock.calls.filter((call) => String(call[0]).includes('Unhandled error event'))).toEqual([]);
      expect(await invoke(remoteAgent(client(), 'echo', { prefix }), 'again', { timeout: 10_000 })).toBe('echo again');
    } finally {
      consumer.unsubscribe();
      entries.unsubscribe();
      bus.close();
      await worker.close();
    }
  });
});

describeRedis('a call stream or consumer group that Redis lost', (server) => {
  const served = servedPerTest('rlg');

  it.each([
    // As when Redis evicts the call stream (an allkeys eviction policy) or loses it: its group goes with it.
    ['the call stream', (redis: Redis, calls: string) => redis.del(calls)],
    ['the consumer group', (redis: Redis, calls: string) => redis.xgroup('DESTROY', calls, 'workers')],
  ])('is no failure when %s is lost: a busy worker goes on with its call, creates it again and serves the next calls, each once', async (_what, lose) => {
    const redis = server().client();
    const calls = `${served.prefix}:agent:{busy}:calls`;
    const reports: unknown[] = [];
    const inputs: string[] = [];
    const finishes: Array<() => void> = [];
    const busy = defineAgent('busy', (input) => new Promise<string>((resolve) => void (inputs.push(input), finishes.push(() => resolve(`done ${input}`)))));
    served.serve(server().client(), busy, { concurrency: 1, onError: (error) => reports.push(error) });
    const remote = remoteAgent(server().client(), 'busy', { prefix: served.prefix });
    const first = invoke(remote, 'first', { timeout: 20_000 });
    await waitUntil('the worker runs the first call', () => finishes.length === 1);
    // Lost while the worker's only slot is busy.
    await lose(redis, calls);
    // Long enough for several confirmations (every 100 ms) and a claim (every 500 ms) against the missing group.
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    expect(reports).toEqual([]);
    finishes[0]?.();
    expect(await first).toBe('done first');
    const second = invoke(remote, 'second', { timeout: 20_000 });
    await waitUntil('the worker runs the second call', () => finishes.length === 2);
    expect(inputs).toEqual(['first', 'second']);
    finishes[1]?.();
    expect(await second).toBe('done second');
    expect(reports).toEqual([]);
    expect(await redis.xinfo('GROUPS', calls)).toHaveLength(1);
  });
});
