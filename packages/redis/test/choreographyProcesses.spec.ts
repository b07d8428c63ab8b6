import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { newRunId } from '@rxagents/core';
import type { Redis } from 'ioredis';
import { describeRedis } from './support/describeRedis';
import { killProcess, spawnProcess } from './support/spawnProcess';
import { waitUntil } from './support/waitUntil';

jest.setTimeout(60_000);

interface Seen {
  readonly pid: number;
  readonly steps: readonly { readonly interactionId: string; readonly agentId: string; readonly success: boolean; readonly output?: string; readonly error?: string }[];
  readonly termination: { readonly decision: string; readonly reason: string };
  readonly success: boolean;
}

describeRedis('a choreography across processes', (server) => {
  let prefix: string;
  let runId: string;
  let redis: Redis;
  const children: ChildProcess[] = [];
  const start = async (hosts: string, env: Record<string, string> = {}) => {
    const child = await spawnProcess('support/choreographyWorker.ts', { REDIS_PORT: String(server().port), PREFIX: prefix, RUN_ID: runId, HOSTS: hosts, ...env });
    children.push(child);
    return child;
  };
  const results = async (count: number): Promise<Seen[]> => {
    await waitUntil(`${count} processes have reported`, async () => (await redis.llen(`${prefix}:test:results`)) >= count, 30_000);
    return (await redis.lrange(`${prefix}:test:results`, 0, -1)).map((text) => JSON.parse(text) as Seen);
  };
  // The pids that started a task, in order, each run once (a push sent again after a restart is one run).
  const list = async (name: string) => [...new Set(await redis.lrange(`${prefix}:test:${name}`, 0, -1))].map((entry) => entry.split(' ')[0] ?? '');
  // How many runs of a task completed (each adds its own token, so a command sent again counts once).
  const count = (name: string) => redis.scard(`${prefix}:test:${name}`);
  beforeEach(() => {
    prefix = `choreo-${randomUUID()}`;
    runId = newRunId();
    redis = server().client();
  });
  afterEach(async () => {
    await Promise.all(children.splice(0).map((child) => killProcess(child)));
  });

  it('runs every interaction once across three processes, which all end with the same steps and result', async () => {
    // Every process hosts "worker" (the fan-out is shared among them); planner, editor and reviewer live in one each.
    const processes = await Promise.all([start('planner,worker'), start('worker,editor'), start('worker,reviewer')]);
    const seen = await results(3);
    const ids = seen[0]?.steps.map((step) => step.interactionId);
    expect([...(ids ?? [])].sort()).toEqual(['merge', 'plan', 'review', 'w1', 'w2', 'w3', 'w4']);
    expect(ids?.slice(0, 1)).toEqual(['plan']);
    expect(ids?.slice(-2)).toEqual(['merge', 'review']);
    for (const other of seen.slice(1)) expect(other.steps).toEqual(seen[0]?.steps);
    for (const process of seen) {
      expect(process.success).toBe(true);
      expect(process.termination.decision).toBe('completed');
    }
    for (const task of ['plan', 'w1', 'w2', 'w3', 'w4', 'merge', 'review']) {
      expect(await list(`started:${task}`)).toHaveLength(1);
      expect(await count(`completed:${task}`)).toBe(1);
    }
    // Each step names the process that ran it: planner, editor and reviewer ran where they are hosted.
    const pids = processes.map((child) => String(child.pid));
    const ranBy = (interactionId: string) => seen[0]?.steps.find((step) => step.interactionId === interactionId)?.output?.split(' by ')[1];
    expect(ranBy('plan')).toBe(pids[0]);
    expect(ranBy('merge')).toBe(pids[1]);
    expect(ranBy('review')).toBe(pids[2]);
  });

  it('runs an interaction again in another process when the one running it is SIGKILLed, and records its step once', async () => {
    const env = { LEASE_MS: '600', SLOW_MS: '1500' };
    const all = 'planner,worker,editor,reviewer';
    await Promise.all([start(all, env), start(all, env), start(all, env)]);
    await waitUntil('w1 has started', async () => (await list('started:w1')).length === 1);
    const [firstPid] = await list('started:w1');
    const victim = children.find((child) => String(child.pid) === firstPid) as ChildProcess;
    await killProcess(victim, 'SIGKILL');

    const seen = await results(2);
    const survivors = children.filter((child) => child !== victim).map((child) => String(child.pid));
    expect(seen.map((process) => String(process.pid)).sort()).toEqual([...survivors].sort());
    expect(seen[1]?.steps).toEqual(seen[0]?.steps);
    const w1 = seen[0]?.steps.filter((step) => step.interactionId === 'w1') ?? [];
    expect(w1).toHaveLength(1);
    expect(survivors).toContain(w1[0]?.output?.split(' by ')[1]);
    expect(seen[0]?.steps).toHaveLength(7);
    expect(seen.every((process) => process.success && process.termination.decision === 'completed')).toBe(true);
    const started = await list('started:w1');
    expect(started).toHaveLength(2);
    expect(started[0]).toBe(firstPid);
    expect(await count('completed:w1')).toBe(1);
  });

  it('runs every interaction once across three processes while Redis restarts mid-run (AOF on)', async () => {
    const env = { LEASE_MS: '5000', SLOW_MS: '1500' };
    await Promise.all([start('planner,worker', env), start('worker,editor', env), start('worker,reviewer', env)]);
    await waitUntil('w1 has started', async () => (await list('started:w1')).length === 1);
    await server().restart();
    const seen = await results(3);
    for (const process of seen) {
      expect(process.steps).toEqual(seen[0]?.steps);
      expect(process.success).toBe(true);
      expect(process.termination.decision).toBe('completed');
    }
    expect(seen[0]?.steps).toHaveLength(7);
    for (const task of ['plan', 'w1', 'w2', 'w3', 'w4', 'merge', 'review']) {
      expect(await list(`started:${task}`)).toHaveLength(1);
      expect(await count(`completed:${task}`)).toBe(1);
    }
  });

  it('ends with the same deadlock in every process when an awaited event never comes', async () => {
    // w2 fails, so its event never comes: merge waits for it, review for merge.
    await Promise.all([start('planner,worker', { FAIL: 'w2' }), start('worker,editor', { FAIL: 'w2' }), start('reviewer', { FAIL: 'w2' })]);
    const seen = await results(3);
    for (const process of seen) {
      expect(process.termination).toEqual(seen[0]?.termination);
      expect(process.steps).toEqual(seen[0]?.steps);
      expect(process.success).toBe(false);
    }
    expect(seen[0]?.termination.decision).toBe('deadlocked');
    expect(seen[0]?.termination.reason).toContain('never started: merge (waits for w2-done); review (waits for merged)');
    expect(seen[0]?.steps.find((step) => step.interactionId === 'w2')).toMatchObject({ success: false, error: 'Remote agent "worker" failed: Agent "worker" failed: w2 failed' });
    expect(await list('started:merge')).toHaveLength(0);
  });
});
