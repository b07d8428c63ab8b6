import type { RunEvent, RunLease, RunLeaseOptions, RunListOptions, RunRecord, RunStore, RunSummary } from '@rxagents/core';

/**
 * The store as one run of a registry sees it: every call goes to the registry's store, and the registry
 * learns how much of the run's journal the store holds (so that viewers are shown only what it holds)
 * and can journal a cancellation's ends under the run's own lease when the run gives it back.
 */
export class TrackedRunStore implements RunStore {
  /** How many of the run's records the store is known to hold (read back, or appended). */
  journaled = 0;
  /** Told whenever `journaled` grows. */
  grew: () => void = () => undefined;
  /** Told of every batch of the run's events the store took. */
  took: (events: readonly RunEvent[]) => void = () => undefined;
  /** Whether the store took the run's end (its root `run-end`): a `run-end` it did not take is a stop, not the end. */
  rootEnded = false;
  /** Set by a cancellation: the ends of the run's open nodes, journaled before its lease is given back. */
  private ends: readonly RunEvent[] | undefined;

  constructor(
    private readonly store: RunStore,
    private readonly runId: string,
  ) {}

  /** The run is cancelled: `ends` go into its journal once the run gives its lease back. */
  cancelWith(ends: readonly RunEvent[]): void {
    this.ends = ends;
  }

  async append(runId: string, events: readonly RunEvent[], lease?: RunLease): Promise<void> {
    await this.store.append(runId, events, lease);
    if (runId !== this.runId) return;
    this.journaled += events.length;
    if (events.some((event) => event.type === 'run-end' && event.parentCallId === null)) this.rootEnded = true;
    this.took(events);
    this.grew();
  }

  async *read(runId: string, fromSeq?: number): AsyncIterable<RunRecord> {
    for await (const record of this.store.read(runId, fromSeq)) {
      if (runId === this.runId && record.seq >= this.journaled) this.journaled = record.seq + 1;
      if (runId === this.runId && record.event.type === 'run-end' && record.event.parentCallId === null) this.rootEnded = true;
      yield record;
    }
  }

  summary(runId: string): Promise<RunSummary | undefined> {
    return this.store.summary(runId);
  }

  list(options?: RunListOptions): Promise<readonly RunSummary[]> {
    return this.store.list(options);
  }

  acquireLease(runId: string, ttlMs: number, options?: RunLeaseOptions): Promise<RunLease> {
    return this.store.acquireLease(runId, ttlMs, options);
  }

  renewLease(lease: RunLease, ttlMs: number): Promise<RunLease> {
    return this.store.renewLease(lease, ttlMs);
  }

  releaseLease(lease: RunLease): Promise<void> {
    // A run gives its lease back as it is unsubscribed, possibly before the cancellation that
    // unsubscribed it has said its ends: they are taken a moment later, in the same job.
    return Promise.resolve().then(async () => {
      const ends = this.ends;
      this.ends = undefined;
      try {
        if (ends !== undefined && ends.length > 0 && lease.runId === this.runId) await this.append(this.runId, ends, lease);
      } finally {
        await this.store.releaseLease(lease);
      }
    });
  }

  expire(runId: string, afterMs: number): Promise<void> {
    return this.store.expire(runId, afterMs);
  }

  delete(runId: string): Promise<void> {
    return this.store.delete(runId);
  }
}
