import { defineAgent, emitCustom, observeRun, type RunEvent, runEventStream, stream } from '@rxagents/core';
import type { Redis } from 'ioredis';
import { from, Observable, tap } from 'rxjs';
import { remoteAgent } from '../src';
import { describeRedis } from './support/describeRedis';
import { servedPerTest } from './support/servedPerTest';
import { waitUntil } from './support/waitUntil';

jest.setTimeout(60_000);

/** Redis's count of the bytes it has sent to its clients (`INFO stats`). */
async function bytesSent(redis: Redis): Promise<number> {
  const match = /total_net_output_bytes:(\d+)/.exec(await redis.info('stats'));
  return Number(match?.[1]);
}

/** The reply streams under `prefix` (one per call). */
async function replyStreams(redis: Redis, prefix: string): Promise<string[]> {
  return (await redis.scan('0', 'MATCH', `${prefix}:call:*:reply`, 'COUNT', 10_000))[1];
}

describeRedis('remote calls in a paced run', (server) => {
  const served = servedPerTest('tp');
  // A test that fails midway leaves its run subscribed: cancelling it stops the caller's lease renewals.
  const readers: Array<ReadableStreamDefaultReader<RunEvent>> = [];
  afterEach(async () => {
    await Promise.all(readers.splice(0).map((reader) => reader.cancel()));
  });

  it('takes a bounded part of a large reply from Redis while its reader stalls, and then delivers all of it', async () => {
    const redis = server().client();
    const count = 64 * 256; // 64 reply entries of 256 replies each
    const pad = 'x'.repeat(200);
    served.serve(
      server().client(),
      defineAgent('chatty', (_input, { run }) => {
        for (let index = 0; index < count; index += 1) emitCustom(run, 'step', { index, pad });
        return from(['done']);
      }),
    );
    const remote = remoteAgent(server().client(), 'chatty', { prefix: served.prefix, delivery: 'live' });
    const reader = runEventStream((pace) => observeRun('ui', 'go', (run) => stream(remote, 'go', { run }), { pace }), { bufferSize: 16 }).getReader();
    readers.push(reader);
    const indexes: number[] = [];
    const readUntil = async (read: number): Promise<boolean> => {
      while (indexes.length < read) {
        const { done, value } = await reader.read();
        if (done) return false;
        const event = value;
        if (event.type === 'custom' && event.name === 'step') indexes.push((event.data as { index: number }).index);
      }
      return true;
    };
    await waitUntil('the worker wrote the whole reply', async () => {
      const [reply] = await replyStreams(redis, served.prefix);
      const [last] = reply === undefined ? [] : await redis.xrevrange(reply, '+', '-', 'COUNT', 1);
      return last !== undefined && last[1].join('').includes('"kind":"end"');
    });
    const before = await bytesSent(redis);
    // Past the first entry, so that the caller reads the stream again; then the reader stalls.
    await readUntil(300);
    // Time for the caller to read what it would, as it would without a stalled reader.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const takenWhileStalled = (await bytesSent(redis)) - before;

    const [reply] = await replyStreams(redis, served.prefix);
    const entries = await redis.xrange(reply ?? '', '-', '+');
    const replyBytes = entries.reduce((sum, [, fields]) => sum + fields.join('').length, 0);
    expect(takenWhileStalled).toBeLessThan(replyBytes / 2);
    await readUntil(count);
    expect(indexes).toEqual(Array.from({ length: count }, (_, index) => index));
    await reader.cancel();
  });

  it.each(['attempt', 'live'] as const)('keeps a call alive while its reader stalls longer than its lease, then delivers every chunk (delivery %s)', async (delivery) => {
    let resume: () => void = () => undefined;
    let aborted = false;
    const words = Array.from({ length: 100 }, (_, index) => `w${index} `);
    served.serve(
      server().client(),
      defineAgent(
        'steady',
        (_input, { signal }) =>
          new Observable<string>((subscriber) => {
            signal.addEventListener('abort', () => (aborted = true));
            for (const word of words.slice(0, 50)) subscriber.next(word);
            resume = () => (words.slice(50).forEach((word) => subscriber.next(word)), subscriber.complete());
          }),
      ),
    );
    // A lease that lapses ends the call (RemoteLeaseLostError): it is long enough for a busy machine's event
    // loop to renew it in time, and the stall below lasts several of them.
    const remote = remoteAgent(server().client(), 'steady', { prefix: served.prefix, delivery, leaseMs: 150 });
    const reader = runEventStream((pace) => observeRun('ui', 'go', (run) => stream(remote, 'go', { run }), { pace }), { bufferSize: 4 }).getReader();
    readers.push(reader);
    await reader.read();
    await waitUntil('the agent wrote its first half', async () => (await replyStreams(server().client(), served.prefix)).length === 1);
    // Five leases and more, while the worker checks the lease every 100 ms and the reader reads nothing.
    await new Promise((resolve) => setTimeout(resolve, 800));
    resume();
    let text = '';
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (value.type === 'text-delta') text += value.delta;
      if (value.type === 'run-end') expect(value.success).toBe(true);
    }
    expect(text).toBe(words.join(''));
    expect(aborted).toBe(false);
  });

  it("aborts the worker's agent and deletes the call's keys when the run is cancelled while the call waits for its reader", async () => {
    const redis = server().client();
    let started = 0;
    let aborted = 0;
    served.serve(
      server().client(),
      defineAgent(
        'waiting',
        (_input, { signal }) =>
          new Observable<string>((subscriber) => {
            started++;
            for (let index = 0; index < 100; index += 1) subscriber.next(`w${index} `);
            signal.addEventListener('abort', () => aborted++);
          }),
      ),
    );
    const remote = remoteAgent(server().client(), 'waiting', { prefix: served.prefix, delivery: 'live' });
    let emitted = 0;
    const reader = runEventStream(
      (pace) => observeRun('ui', 'go', (run) => stream(remote, 'go', { run }), { pace }).pipe(tap(() => emitted++)),
      { bufferSize: 4 },
    ).getReader();
    readers.push(reader);
    await reader.read();
    await waitUntil('the call waits for its reader', () => started === 1 && emitted >= 4);
    await reader.cancel();
    await waitUntil('the worker aborts the agent', () => aborted === 1);
    await waitUntil("the call's keys are deleted", async () => (await redis.scan('0', 'MATCH', `${served.prefix}:call:*`, 'COUNT', 10_000))[1].length === 0);
    expect(await redis.xlen(`${served.prefix}:agent:{waiting}:calls`)).toBe(0);
  });
});
