import { asyncScheduler, type SchedulerLike } from 'rxjs';
import * as z from 'zod';
import * as configRules from '../configRules';
import { ConfigError } from '../errors/ConfigError';
import { RunLeasedError } from '../errors/RunLeasedError';
import { RunLeaseLostError } from '../errors/RunLeaseLostError';
import type { RunEvent } from '../events/RunEvent';
import { newRunId } from '../events/ids';
import { parseConfig } from '../parseConfig';
import { RunLeaseOptionsSchema } from './RunLeaseOptionsSchema';
import type { RunLease, RunLeaseOptions, RunListOptions, RunRecord, RunStatus, RunStore, RunSummary } from './RunStore';

/**
 * Options of {@link MemoryRunStore}.
 *
 * @example
 * ```ts
 * import { TestScheduler } from 'rxjs/testing';
 * import { MemoryRunStore, type MemoryRunStoreOptions } from '@rxagents/core';
 *
 * const scheduler = new TestScheduler((actual, expected) => console.assert(actual === expected));
 * const options: MemoryRunStoreOptions = { scheduler };
 * console.log(new MemoryRunStore(options) instanceof MemoryRunStore); // true
 * ```
 */
export interface MemoryRunStoreOptions {
  /** The clock of `createdAt`, `updatedAt`, lease expiry and `expire`. Defaults to `asyncScheduler`. */
  readonly scheduler?: SchedulerLike;
}

/**
 * The zod schema of {@link MemoryRunStoreOptions}.
 *
 * @example
 * ```ts
 * import { MemoryRunStoreOptionsSchema } from '@rxagents/core';
 *
 * console.log(MemoryRunStoreOptionsSchema.safeParse({ clock: 1 }).success); // false
 * ```
 */
export const MemoryRunStoreOptionsSchema = z.strictObject({ scheduler: configRules.scheduler().optional() }, { error: 'must be an object' });

interface StoredRun {
  readonly events: RunEvent[];
  readonly name: string;
  readonly createdAt: number;
  updatedAt: number;
  status: RunStatus;
  deleteAt: number;
}

interface HeldLease {
  readonly token: string;
  readonly epoch: number;
  readonly owner: string | undefined;
  expiresAt: number;
}

/**
 * A {@link RunStore} in this process's memory: for tests, and for runs that need a journal only while the
 * process lives (a run registry that serves late viewers).
 *
 * @remarks
 * Keeps the whole {@link RunStore} contract, on its scheduler's clock, so lease expiry and `expire` can be
 * tested on virtual time. Its leases all live in this process, so a lease records only its `owner` as
 * its holder (no host or pid). Expired runs and leases are dropped when next touched; nothing runs in the
 * background. Records are kept as given (events are plain data: do not change one after appending it).
 *
 * @example
 * ```ts
 * import { MemoryRunStore } from '@rxagents/core';
 *
 * const store = new MemoryRunStore();
 * await store.append('r1', [{ type: 'run-start', runId: 'r1', callId: 'run', parentCallId: null, at: 0, name: 'story', input: 'go' }]);
 * console.log((await store.summary('r1'))?.status); // running
 * ```
 */
export class MemoryRunStore implements RunStore {
  readonly #scheduler: SchedulerLike;
  readonly #runs = new Map<string, StoredRun>();
  readonly #leases = new Map<string, HeldLease>();
  /** The epoch of each run's last lease, kept after the lease is released so the next one is higher. */
  readonly #epochs = new Map<string, number>();

  constructor(options: MemoryRunStoreOptions = {}) {
    const { scheduler = asyncScheduler } = parseConfig(MemoryRunStoreOptionsSchema, options, 'MemoryRunStore');
    this.#scheduler = scheduler;
  }

  async append(runId: string, events: readonly RunEvent[], lease?: RunLease): Promise<void> {
    checkRunId(runId, 'append');
    if (!Array.isArray(events)) throw new ConfigError('MemoryRunStore.append', [{ path: 'events', rule: 'must be an array of run events', received: events }]);
    if (lease !== undefined) this.#checkLease(runId, lease);
    if (events.length === 0) return;
    const now = this.#scheduler.now();
    let run = this.#live(runId);
    if (run === undefined) {
      const first = events[0] as RunEvent;
      if (first?.type !== 'run-start' || first.parentCallId !== null) {
        throw new ConfigError('MemoryRunStore.append', [{ path: 'events[0]', rule: "must be the root node's run-start (parentCallId null) in a new journal", received: first?.type }]);
      }
      run = { events: [], name: first.name, createdAt: now, updatedAt: now, status: 'running', deleteAt: Infinity };
      this.#runs.set(runId, run);
    }
    for (const event of events) {
      run.events.push(event);
      if (event.type === 'run-end' && event.parentCallId === null) run.status = event.success ? 'succeeded' : 'failed';
    }
    run.updatedAt = now;
  }

  async *read(runId: string, fromSeq = 0): AsyncIterable<RunRecord> {
    checkRunId(runId, 'read');
    checkSeq(fromSeq);
    const run = this.#live(runId);
    if (run === undefined) return;
    const end = run.events.length;
    for (let seq = fromSeq; seq < end; seq++) yield { seq, event: run.events[seq] as RunEvent };
  }

  async summary(runId: string): Promise<RunSummary | undefined> {
    checkRunId(runId, 'summary');
    const run = this.#live(runId);
    return run === undefined ? undefined : summarise(runId, run);
  }

  async list(options: RunListOptions = {}): Promise<readonly RunSummary[]> {
    const { status } = parseConfig(RunListOptionsSchema, options, 'MemoryRunStore.list');
    const summaries: RunSummary[] = [];
    for (const runId of [...this.#runs.keys()]) {
      const run = this.#live(runId);
      if (run !== undefined && (status === undefined || run.status === status)) summaries.push(summarise(runId, run));
    }
    return summaries.sort((a, b) => a.createdAt - b.createdAt);
  }

  async acquireLease(runId: string, ttlMs: number, options: RunLeaseOptions = {}): Promise<RunLease> {
    checkRunId(runId, 'acquireLease');
    checkTtl(ttlMs, 'acquireLease');
    const { owner } = parseConfig(RunLeaseOptionsSchema, options, 'MemoryRunStore.acquireLease options');
    const now = this.#scheduler.now();
    this.#live(runId);
    const held = this.#leases.get(runId);
    if (held !== undefined && held.expiresAt > now && (owner === undefined || held.owner !== owner)) {
      throw new RunLeasedError(runId, held.expiresAt, { now, holder: held.owner === undefined ? {} : { owner: held.owner } });
    }
    const epoch = (this.#epochs.get(runId) ?? 0) + 1;
    const lease: HeldLease = { token: newRunId(), epoch, owner, expiresAt: now + ttlMs };
    this.#epochs.set(runId, epoch);
    this.#leases.set(runId, lease);
    return { runId, token: lease.token, epoch, expiresAt: lease.expiresAt };
  }

  async renewLease(lease: RunLease, ttlMs: number): Promise<RunLease> {
    checkTtl(ttlMs, 'renewLease');
    const held = this.#checkLease(lease?.runId, lease);
    held.expiresAt = this.#scheduler.now() + ttlMs;
    return { runId: lease.runId, token: held.token, epoch: held.epoch, expiresAt: held.expiresAt };
  }

  async releaseLease(lease: RunLease): Promise<void> {
    const held = this.#leases.get(lease?.runId);
    if (held !== undefined && held.token === lease.token) this.#leases.delete(lease.runId);
  }

  async expire(runId: string, afterMs: number): Promise<void> {
    checkRunId(runId, 'expire');
    parseConfig(configRules.delayMs(), afterMs, 'MemoryRunStore.expire afterMs');
    const run = this.#live(runId);
    if (run !== undefined) run.deleteAt = this.#scheduler.now() + afterMs;
  }

  async delete(runId: string): Promise<void> {
    checkRunId(runId, 'delete');
    this.#runs.delete(runId);
    this.#leases.delete(runId);
    this.#epochs.delete(runId);
  }

  /** The run, unless it expired (then it is dropped). */
  #live(runId: string): StoredRun | undefined {
    const run = this.#runs.get(runId);
    if (run !== undefined && this.#scheduler.now() >= run.deleteAt) {
      this.#runs.delete(runId);
      this.#leases.delete(runId);
      this.#epochs.delete(runId);
      return undefined;
    }
    return run;
  }

  /** The run's lease when `lease` is it; lapsed or not, it is lost only once someone else took it or it was released. */
  #checkLease(runId: string, lease: RunLease): HeldLease {
    this.#live(runId);
    const held = this.#leases.get(runId);
    if (held === undefined || held.token !== lease?.token) throw new RunLeaseLostError(String(runId));
    return held;
  }
}

const RunListOptionsSchema = z.strictObject({ status: z.enum(['running', 'succeeded', 'failed']).optional() }, { error: 'must be an object' });

function summarise(runId: string, run: StoredRun): RunSummary {
  return { runId, name: run.name, status: run.status, records: run.events.length, createdAt: run.createdAt, updatedAt: run.updatedAt };
}

function checkRunId(runId: unknown, operation: string): void {
  if (typeof runId !== 'string' || runId.trim() === '') throw new ConfigError(`MemoryRunStore.${operation}`, [{ path: 'runId', rule: 'must be a non-blank string', received: runId }]);
}

function checkSeq(fromSeq: unknown): void {
  if (!Number.isInteger(fromSeq) || (fromSeq as number) < 0) throw new ConfigError('MemoryRunStore.read', [{ path: 'fromSeq', rule: 'must be a non-negative integer', received: fromSeq }]);
}

function checkTtl(ttlMs: unknown, operation: string): void {
  parseConfig(configRules.timeoutMs(), ttlMs, `MemoryRunStore.${operation} ttlMs`);
}
