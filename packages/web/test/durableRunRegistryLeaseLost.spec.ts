import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunLease } from '@rxagents/core';
import { FileRunStore } from '@rxagents/core/file-store';
import { createRunRegistry, type DurableRunRegistry } from '@rxagents/web';
import { bodyOf, post } from './helpers/answers';
import { askingTrip, callsIn, clockAhead, eventually, rootEnd, tripRuns } from './helpers/stall';

/** Renewed every third of it: long enough for another process to take the lease and give it back in between. */
const LEASE_TTL_MS = 1_500;
const quiet = { heartbeatMs: Infinity, stallTimeoutMs: Infinity, reopenTimeoutMs: 5_000 } as const;

jest.setTimeout(30_000);

describe('a durable run registry whose run lost its lease while a question waits', () => {
  let directory: string;
  let store: FileRunStore;
  let registry: DurableRunRegistry;
  /** The same folder seen by another host, whose clock is past this process's lease. */
  let elsewhere: FileRunStore;

  beforeEach(async () => {
    directory = await mkdtemp(join(tmpdir(), 'rxagents-lease-lost-'));
    store = new FileRunStore({ directory });
    elsewhere = new FileRunStore({ directory, scheduler: clockAhead(10 * LEASE_TTL_MS) });
    registry = createRunRegistry({ store, runs: tripRuns().runs, leaseTtlMs: LEASE_TTL_MS, ...quiet });
  });
  afterEach(async () => {
    registry.close();
    await rm(directory, { recursive: true, force: true });
  });

  /** A run of `trip` that asked its question, the question journaled. */
  const asking = () => askingTrip(registry, store);

  it('taken by another process and given back: resumed at once, by nobody’s request, the question asked again under its id, and answered', async () => {
    const { runId, asked } = await asking();
    await elsewhere.releaseLease(await elsewhere.acquireLease(runId, LEASE_TTL_MS));
    // The registry learns at its next renewal that it lost the lease, and runs the run again.
    await eventually(async () => (await callsIn(store, runId, 'planner')) === 2 && (await registry.pending(runId)).length === 1);
    expect((await registry.pending(runId)).map((event) => event.interruptId)).toEqual([asked.interruptId]);
    expect(registry.has(runId)).toBe(true);
    expect((await registry.handleAnswer(runId, post({ interruptId: asked.interruptId, answer: 4 }))).status).toBe(204);
    await eventually(async () => (await store.summary(runId))?.status !== 'running');
    expect(await rootEnd(store, runId)).toMatchObject({ success: true, output: '4 days in Lisbon' });
  });

  it('taken by another process that still holds it: not resumed here, and an answer is a 409 RUN_HELD_ELSEWHERE', async () => {
    const { runId, asked } = await asking();
    const lease: RunLease = await elsewhere.acquireLease(runId, 60_000);
    try {
      // The registry learns at its next renewal that the run is another's, and lets go of it.
      await eventually(() => !registry.has(runId));
      const refused = await registry.handleAnswer(runId, post({ interruptId: asked.interruptId, answer: 4 }));
      expect(refused.status).toBe(409);
      expect(await bodyOf(refused)).toMatchObject({ error: { code: 'RUN_HELD_ELSEWHERE' } });
      expect(await callsIn(store, runId, 'planner')).toBe(1);
      expect((await store.summary(runId))?.status).toBe('running');
      // The question still waits, for the process that holds the run.
      expect((await registry.pending(runId)).map((event) => event.interruptId)).toEqual([asked.interruptId]);
    } finally {
      await elsewhere.releaseLease(lease);
    }
  });
});
