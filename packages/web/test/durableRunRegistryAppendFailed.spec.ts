import { MemoryRunStore, type RunEvent, type RunLease, type RunListOptions, type RunRecord, type RunStore, type RunSummary } from '@rxagents/core';
import { createRunRegistry } from '@rxagents/web';
import { nextInterrupt } from './helpers/answers';
import { callsIn, eventually, journal, rootEnd, tripRuns } from './helpers/stall';

/** A memory store whose disk is full once: the first append that carries an answer (`interrupt-end`) fails. */
class FullOnce implements RunStore {
  private failed = false;
  constructor(private readonly store: RunStore) {}
  append(runId: string, events: readonly RunEvent[], lease?: RunLease): Promise<void> {
    if (!this.failed && events.some((event) => event.type === 'interrupt-end' && event.answered)) {
      this.failed = true;
      return Promise.reject(new Error('ENOSPC: no space left on device'));
    }
    return this.store.append(runId, events, lease);
  }
  read(runId: string, fromSeq?: number): AsyncIterable<RunRecord> {
    return this.store.read(runId, fromSeq);
  }
  summary(runId: string): Promise<RunSummary | undefined> {
    return this.store.summary(runId);
  }
  list(options?: RunListOptions): Promise<readonly RunSummary[]> {
    return this.store.list(options);
  }
  acquireLease(runId: string, ttlMs: number): Promise<RunLease> {
    return this.store.acquireLease(runId, ttlMs);
  }
  renewLease(lease: RunLease, ttlMs: number): Promise<RunLease> {
    return this.store.renewLease(lease, ttlMs);
  }
  releaseLease(lease: RunLease): Promise<void> {
    return this.store.releaseLease(lease);
  }
  expire(runId: string, afterMs: number): Promise<void> {
    return this.store.expire(runId, afterMs);
  }
  delete(runId: string): Promise<void> {
    return this.store.delete(runId);
  }
}

jest.setTimeout(20_000);

describe('a durable run registry whose store failed to journal an answer once', () => {
  it('resumes the run at once, and the answer it took is applied when it asks again: the run completes with it', async () => {
    const store = new FullOnce(new MemoryRunStore());
    const registry = createRunRegistry({ store, runs: tripRuns().runs, heartbeatMs: Infinity, stallTimeoutMs: Infinity });
    try {
      const { runId } = registry.start('trip', 'Lisbon');
      const asked = await nextInterrupt(runId);
      await eventually(async () => (await journal(store, runId)).some((event) => event.type === 'interrupt'));
      await registry.answer(runId, asked.interruptId, 9);
      await eventually(async () => (await store.summary(runId))?.status !== 'running');
      expect(await rootEnd(store, runId)).toMatchObject({ success: true, output: '9 days in Lisbon' });
      // The first call's answer never reached the journal: the call ran again, and was answered with it.
      expect(await callsIn(store, runId, 'planner')).toBe(2);
      expect((await journal(store, runId)).filter((event) => event.type === 'interrupt-end' && event.answered)).toEqual([expect.objectContaining({ interruptId: asked.interruptId, answer: 9 })]);
    } finally {
      registry.close();
    }
  });
});
