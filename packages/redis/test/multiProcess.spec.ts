import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { invoke$, observeRun, stream } from '@rxagents/core';
import type { Redis } from 'ioredis';
import { firstValueFrom, toArray } from 'rxjs';
import { remoteAgent } from '../src';
import { describeRedis } from './support/describeRedis';
import { killProcess, spawnProcess } from './support/spawnProcess';
import { waitUntil } from './support/waitUntil';

jest.setTimeout(60_000);

describeRedis('remote agents across processes', (server) => {
  let prefix: string;
  let redis: Redis;
  const children: ChildProcess[] = [];
  const counter = async (name: string) => Number((await redis.get(`${prefix}:test:${name}`)) ?? 0);
  const startWorker = async (concurrency = 1) => {
    const child = await spawnProcess('support/worker.ts', { REDIS_PORT: String(server().port), PREFIX: prefix, CONCURRENCY: String(concurrency) });
    children.push(child);
    return child;
  };
  beforeEach(() => {
    prefix = `mp-${randomUUID()}`;
    redis = server().client();
  });
  afterEach(async () => {
    await Promise.all(children.splice(0).map((child) => killProcess(child)));
  });

  it('completes a call once on another worker when its worker is SIGKILLed mid-call, with one attempt’s text', async () => {
    const workers = [await startWorker(), await startWorker()];
    const teller = remoteAgent(server().client(), 'teller', { prefix });
    const input = JSON.stringify({ chunks: 8, delayMs: 100 });
    const events = firstValueFrom(observeRun('story', input, (run) => invoke$(teller, input, { run })).pipe(toArray()));
    await waitUntil('the first worker has streamed two chunks', async () => (await counter('chunks')) >= 2);
    const [firstPid] = await redis.lrange(`${prefix}:test:pids`, 0, -1);
    const victim = workers.find((worker) => String(worker.pid) === firstPid);
    expect(victim).toBeDefined();
    await killProcess(victim as ChildProcess, 'SIGKILL');

    const all = await events;
    const end = all.at(-1);
    expect(end).toMatchObject({ type: 'run-end', success: true });
    const survivor = workers.find((worker) => worker !== victim);
    const expected = Array.from({ length: 8 }, (_, i) => `${String(survivor?.pid)}:${i} `).join('');
    expect(end?.type === 'run-end' ? end.output : undefined).toBe(expected);
    expect(all.filter((e) => e.type === 'custom' && e.name === 'call-restarted')).toHaveLength(1);
    expect(await counter('completed')).toBe(1);
  });

  it('cancelling 100 concurrent remote calls at once leaves no agent running on any worker, and nothing of them in Redis', async () => {
    await startWorker(50);
    await startWorker(50);
    const teller = remoteAgent(server().client(), 'teller', { prefix });
    const input = JSON.stringify({ chunks: 10_000, delayMs: 50 });
    const calls = Array.from({ length: 100 }, () => stream(teller, input).subscribe({ error: () => undefined }));
    await waitUntil('all 100 calls run', async () => (await counter('running')) === 100);
    for (const call of calls) call.unsubscribe();
    await waitUntil('no call runs', async () => (await counter('running')) === 0);
    expect(await counter('aborted')).toBe(100);
    expect(await counter('completed')).toBe(0);
    // Nothing of the cancelled calls is left in Redis, though their workers wrote chunks after the cancellation.
    await waitUntil('no key of a cancelled call is left', async () => (await redis.scan('0', 'MATCH', `${prefix}:call:*`, 'COUNT', 10_000))[1].length === 0);
    await waitUntil('no call entry is left', async () => (await redis.xlen(`${prefix}:agent:{teller}:calls`)) === 0);
  });

  it('stops the calls of a caller that died once its lease runs out', async () => {
    await startWorker();
    const caller = await spawnProcess('support/caller.ts', { REDIS_PORT: String(server().port), PREFIX: prefix, INPUT: JSON.stringify({ chunks: 10_000, delayMs: 50 }) });
    children.push(caller);
    await waitUntil('the call runs', async () => (await counter('running')) === 1);
    await killProcess(caller, 'SIGKILL');
    await waitUntil('the call stops', async () => (await counter('running')) === 0);
    expect(await counter('aborted')).toBe(1);
  });
});
