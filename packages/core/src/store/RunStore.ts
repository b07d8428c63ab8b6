import type { RunEvent } from '../events/RunEvent';

/**
 * Where a stored run stands, read from its journal: `running` until the root node's `run-end` is
 * recorded, then `succeeded` or `failed` as that event says.
 *
 * @remarks
 * `running` means only that the run has not ended: the process running it may have stopped. Whether
 * some process is running it now is its lease ({@link RunStore.acquireLease}).
 *
 * @example
 * ```ts
 * import type { RunStatus } from '@rxagents/core';
 *
 * const unfinished: RunStatus = 'running';
 * console.log(unfinished); // running
 * ```
 */
export type RunStatus = 'running' | 'succeeded' | 'failed';

/**
 * One record of a run's journal: a run event and its place in the journal.
 *
 * @example
 * ```ts
 * import type { RunRecord } from '@rxagents/core';
 *
 * const record: RunRecord = {
 *   seq: 0,
 *   event: { type: 'run-start', runId: 'r1', callId: 'run', parentCallId: null, at: 0, name: 'story', input: 'go' },
 * };
 * console.log(record.event.type); // run-start
 * ```
 */
export interface RunRecord {
  /** The record's position in its run's journal: 0 for the first, one more for each next. */
  readonly seq: number;
  /** What the run said. */
  readonly event: RunEvent;
}

/**
 * What a store knows about one run without reading its whole journal.
 *
 * @example
 * ```ts
 * import type { RunSummary } from '@rxagents/core';
 *
 * const summary: RunSummary = { runId: 'r1', name: 'story', status: 'running', records: 12, createdAt: 0, updatedAt: 40 };
 * console.log(summary.status); // running
 * ```
 */
export interface RunSummary {
  /** The run's id. */
  readonly runId: string;
  /** The root node's `name` (from its `run-start`). */
  readonly name: string;
  /** Running, or how it ended. */
  readonly status: RunStatus;
  /** How many records the journal holds. */
  readonly records: number;
  /** When the first record was appended, in ms on the store's clock. */
  readonly createdAt: number;
  /** When the last record was appended, in ms on the store's clock. */
  readonly updatedAt: number;
}

/**
 * The right to run one run, held by one process at a time until it expires or is released.
 *
 * @remarks
 * Its `token` is unguessable: only the holder can renew, release or append under it. A lease that was
 * not renewed in time can be taken by another process; the old holder's next renewal or append under it
 * fails with `RunLeaseLostError`.
 *
 * Its `epoch` is a fencing token: each lease of a run in a store has a higher one than every earlier
 * lease of that run, and records are written with it, so a store (or a reader of its journal) can tell
 * a write of a process that lost the lease from the current holder's, whenever it lands.
 *
 * @example
 * ```ts
 * import type { RunLease } from '@rxagents/core';
 *
 * const lease: RunLease = { runId: 'r1', token: '0f8c1c3e-3b1f-4a5e-9a55-2b8f0b8f6d11', epoch: 3, expiresAt: 30_000 };
 * console.log(lease.runId); // r1
 * ```
 */
export interface RunLease {
  /** The run the lease is for. */
  readonly runId: string;
  /** The holder's secret. */
  readonly token: string;
  /** The lease's fencing token: a positive integer, higher than that of any earlier lease of the run in its store. */
  readonly epoch: number;
  /** When the lease lapses unless renewed, in ms on the store's clock. */
  readonly expiresAt: number;
}

/**
 * Options of {@link RunStore.list}.
 *
 * @example
 * ```ts
 * import type { RunListOptions } from '@rxagents/core';
 *
 * const options: RunListOptions = { status: 'running' };
 * console.log(options.status); // running
 * ```
 */
export interface RunListOptions {
  /** Only runs in this state. */
  readonly status?: RunStatus;
}

/**
 * Keeps runs' journals: the records of a run, appended in order, read back from any point, and the
 * lease that lets one process at a time run it.
 *
 * @remarks
 * A journal is a run's {@link RunEvent}s, in the order the run said them. Its first record is the root
 * node's `run-start` (the root is the node whose `parentCallId` is `null`); the root's `run-end`, when
 * recorded, ends the run, and the store reads the run's {@link RunStatus} from it. Every store keeps the same contract:
 *
 * - `append` adds records at the end, all or none: a failed append (a full disk, an unreachable server)
 *   rejects with `RunStoreError` and leaves no part of its records in the journal. Appends to one run
 *   are made one after another by its runner; the store assigns `seq`.
 * - An append under a lease is refused with `RunLeaseLostError` once that lease is no longer the run's
 *   current one, so a process that lost its lease cannot write into a run another process took over.
 * - `read` yields the records from `fromSeq` (default 0) to the end as it is when reading starts, in order.
 * - `acquireLease` gives a lease when none is held or the held one expired, and rejects with
 *   `RunLeasedError` otherwise; `renewLease` extends it, or rejects with `RunLeaseLostError`.
 * - `expire` deletes a run `afterMs` from now; `delete` deletes it at once (journal and lease).
 *
 * Run ids, run names and every other string a store reads are data, never object keys or file paths
 * unescaped. The clock of `createdAt`, `updatedAt` and lease expiry is the store's own (a scheduler
 * option where the store has one).
 *
 * @example
 * ```ts
 * import { MemoryRunStore, type RunStore } from '@rxagents/core';
 *
 * const store: RunStore = new MemoryRunStore();
 * await store.append('r1', [{ type: 'run-start', runId: 'r1', callId: 'run', parentCallId: null, at: 0, name: 'story', input: 'go' }]);
 * for await (const record of store.read('r1')) console.log(record.seq, record.event.type); // 0 run-start
 * ```
 */
export interface RunStore {
  /** Appends `events` to the end of `runId`'s journal (creating it with its first record), all or none. */
  append(runId: string, events: readonly RunEvent[], lease?: RunLease): Promise<void>;
  /** The journal's records from `fromSeq` (default 0) to its end, in order. */
  read(runId: string, fromSeq?: number): AsyncIterable<RunRecord>;
  /** What the store knows of `runId`, or `undefined` when it holds no such run. */
  summary(runId: string): Promise<RunSummary | undefined>;
  /** Every run the store holds (optionally only those in one state), oldest first. */
  list(options?: RunListOptions): Promise<readonly RunSummary[]>;
  /** Takes the run's lease for `ttlMs`, or rejects with `RunLeasedError` while another holder's lease lasts. */
  acquireLease(runId: string, ttlMs: number): Promise<RunLease>;
  /** Extends a lease for `ttlMs` from now, or rejects with `RunLeaseLostError` when it is no longer the run's. */
  renewLease(lease: RunLease, ttlMs: number): Promise<RunLease>;
  /** Gives the lease up (nothing happens when it is no longer the run's). */
  releaseLease(lease: RunLease): Promise<void>;
  /** Deletes the run `afterMs` from now. */
  expire(runId: string, afterMs: number): Promise<void>;
  /** Deletes the run and its lease now (nothing happens when there is no such run). */
  delete(runId: string): Promise<void>;
}
