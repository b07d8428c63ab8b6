import { defineAgent, invoke } from '@rxagents/core';
import { remoteAgent } from '../src';
import { describeRedis } from './support/describeRedis';
import { servedPerTest } from './support/servedPerTest';
import { waitUntil } from './support/waitUntil';

jest.setTimeout(30_000);

describeRedis('orphaned calls under load', (server) => {
  const served = servedPerTest('tcl');

  // A slot that frees at once, or after the claimed call waited longer than claimIdleMs / 2 (it is released for other workers then).
  it.each([0, 800])('claims a dead worker’s call while every slot is busy with new calls, and runs it in the next free slot, before newer calls (slot freed %i ms after the claim)', async (waitMs) => {
    const redis = server().client();
    const calls = `${served.prefix}:agent:{busy}:calls`;
    const remote = remoteAgent(server().client(), 'busy', { prefix: served.prefix });
    // A worker that read the call and died: its consumer never acknowledges it.
    await redis.xgroup('CREATE', calls, 'workers', '0', 'MKSTREAM');
    const orphan = invoke(remote, 'orphan', { timeout: 20_000 });
    await waitUntil('the call is added', async () => (await redis.xlen(calls)) === 1);
    await redis.xreadgroup('GROUP', 'workers', 'dead', 'COUNT', 1, 'STREAMS', calls, '>');

    const started: string[] = [];
    const finish = new Map<string, () => void>();
    const busy = defineAgent('busy', (input) => new Promise<string>((resolve) => (started.push(input), finish.set(input, () => resolve(`done ${input}`)))));
    const worker = served.serve(server().client(), busy, { concurrency: 2, claimIdleMs: 1_000, leaseCheckMs: 100 });
    // More new calls than the worker has slots: a freed slot always finds a new call to read.
    const newer = Array.from({ length: 6 }, (_, index) => invoke(remote, `new ${index}`, { timeout: 20_000 }));
    await waitUntil('both slots run new calls', () => started.length === 2);
    expect(started).not.toContain('orphan');

    const pendingHere = async (): Promise<number> => {
      const [, , , consumers] = (await redis.xpending(calls, 'workers')) as [number, string, string, Array<[string, string]> | null];
      return Number(consumers?.find(([name]) => name === worker.consumer)?.[1] ?? 0);
    };
    await waitUntil('the worker claimed the orphan although no slot is free', async () => (await pendingHere()) === 3);
    expect(started).toHaveLength(2);
    await new Promise((resolve) => setTimeout(resolve, waitMs));

    finish.get(started[0] as string)?.();
    await waitUntil('the freed slot runs a call', () => started.length === 3);
    expect(started[2]).toBe('orphan');
    finish.get('orphan')?.();
    expect(await orphan).toBe('done orphan');

    // The rest are served as before (in whatever order their entries were added).
    const finished = new Set<string>([started[0] as string, 'orphan']);
    while (finished.size < 7) {
      await waitUntil('another call runs', () => started.some((input) => !finished.has(input)));
      for (const input of started.filter((name) => !finished.has(name))) {
        finished.add(input);
        finish.get(input)?.();
      }
    }
    expect(await Promise.all(newer)).toEqual(Array.from({ length: 6 }, (_, index) => `done new ${index}`));
  });
});
