import { defineAgent, observeRun, type RunEvent, runEventStream, stream } from '@rxagents/core';
import type { Redis } from 'ioredis';
import { from } from 'rxjs';
import { remoteAgent } from '../src';
import { describeRedis } from './support/describeRedis';
import { servedPerTest } from './support/servedPerTest';
import { waitUntil } from './support/waitUntil';

jest.setTimeout(60_000);

/** The reply streams under `prefix` (one per call). */
async function replyStreams(redis: Redis, prefix: string): Promise<string[]> {
  return (await redis.scan('0', 'MATCH', `${prefix}:call:*:reply`, 'COUNT', 10_000))[1];
}

/** What a paced run's reader got: the text, and the run's end. */
interface Read {
  readonly text: string;
  readonly end: Extract<RunEvent, { type: 'run-end' }> | undefined;
}

describeRedis('remote calls whose reply Redis no longer holds', (server) => {
  const served = servedPerTest('tl');
  const readers: Array<ReadableStreamDefaultReader<RunEvent>> = [];
  afterEach(async () => {
    await Promise.all(readers.splice(0).map((reader) => reader.cancel()));
  });

  // 40 stream entries of 256 chunks each: more than a paced call reads at once (16 entries).
  const words = Array.from({ length: 40 * 256 }, (_, index) => `w${index} `);

  /** Starts a paced run of `remote` whose reader stalls after its first event; `readAll` reads the rest. */
  const stalledRun = async (remote: ReturnType<typeof remoteAgent>): Promise<{ readAll: () => Promise<Read> }> => {
    const reader = runEventStream((pace) => observeRun('ui', 'go', (run) => stream(remote, 'go', { run }), { pace }), { bufferSize: 4 }).getReader();
    readers.push(reader);
    await reader.read();
    return {
      readAll: async () => {
        let text = '';
        let end: Read['end'];
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return { text, end };
          if (value.type === 'text-delta') text += value.delta;
          if (value.type === 'run-end' && value.parentCallId === null) end = value;
        }
      },
    };
  };

  it('fails the call, naming it and replyMaxLen, when Redis trimmed reply entries its stalled reader had not read', async () => {
    const redis = server().client();
    served.serve(server().client(), defineAgent('long', () => from(words)), { replyMaxLen: 4 });
    const remote = remoteAgent(server().client(), 'long', { prefix: served.prefix, delivery: 'live' });
    const run = await stalledRun(remote);
    await waitUntil('the worker wrote the whole reply', async () => {
      const [reply] = await replyStreams(redis, served.prefix);
      const [last] = reply === undefined ? [] : await redis.xrevrange(reply, '+', '-', 'COUNT', 1);
      return last !== undefined && last[1].join('').includes('"kind":"end"');
    });
    const { text, end } = await run.readAll();
    expect(text.length).toBeLessThan(words.join('').length);
    expect(end?.success).toBe(false);
    expect(end?.error?.message).toMatch(/call [0-9a-f-]{36}.*trimmed.*replyMaxLen/s);
  });

  it('fails the call, naming it and replyTtlMs, when its reply stream expired while its reader stalled', async () => {
    const redis = server().client();
    served.serve(server().client(), defineAgent('long', () => from(words)), { replyTtlMs: 300 });
    const remote = remoteAgent(server().client(), 'long', { prefix: served.prefix, delivery: 'live' });
    const run = await stalledRun(remote);
    await waitUntil('the worker wrote its reply', async () => (await replyStreams(redis, served.prefix)).length === 1);
    await waitUntil('the reply stream expired', async () => (await replyStreams(redis, served.prefix)).length === 0);
    const { text, end } = await run.readAll();
    expect(text.length).toBeLessThan(words.join('').length);
    expect(end?.success).toBe(false);
    expect(end?.error?.message).toMatch(/call [0-9a-f-]{36}.*expired.*replyTtlMs/s);
  });
});
