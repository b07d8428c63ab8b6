import { randomUUID } from 'node:crypto';
import { defineAgent, invoke } from '@rxagents/core';
import type { RedisOptions } from 'ioredis';
import { redisChannel, redisEventBus, remoteAgent, serveAgent } from '../src';
import { describeRedis } from './support/describeRedis';
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
