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
 * Who holds a run's lease, as the store recorded it when the lease was taken.
 *
 * @remarks
 * `host` and `pid` name the holding process where the store can know them (the file and Redis stores
 * record both; the in-memory store, whose leases all live in this process, records neither). `owner` is
 * the stable identity the holder gave `acquireLease` (see {@link RunLeaseOptions.owner}).
 *
 * @example
 * ```ts
 * import type { RunLeaseHolder } from '@rxagents/core';
 *
 * const holder: RunLeaseHolder = { host: 'worker-7', pid: 4242, owner: 'registry-a' };
 * console.log(holder.owner); // registry-a
 * ```
 */
export interface RunLeaseHolder {
  /** The host name of the holding process, where the store records it. */
  readonly host?: string;
  /** The process id of the holding process (on `host`), where the store records it. */
  readonly pid?: number;
  /** The stable identity the holder gave when it took the lease. */
  readonly owner?: string;
}

/**
 * The right to run one run, held by one process at a time until it is released or another process
 * takes it after it lapsed.
 *
 * @remarks
 * Its `token` is unguessable: only the holder can renew, release or append under it. Its `epoch` is a
 * fencing token: every lease of a run has a higher epoch than every earlier lease of that run in the
 * store, also across `releaseLease` (only `delete` lets a run start again from epoch 1), so a record or
 * a write can say which lease made it. A lease that was not renewed in time is only *takeable*: until
 * another process takes it, its holder's late renewal or append still succeeds. Once another process
 * took it (or it was released, or the run deleted), the old holder's renewal or append fails with
 * `RunLeaseLostError`.
 *
 * @example
 * ```ts
 * import type { RunLease } from '@rxagents/core';
 *
 * const lease: RunLease = { runId: 'r1', token: '0f8c1c3e-3b1f-4a5e-9a55-2b8f0b8f6d11', epoch: 1, expiresAt: 30_000 };
 * console.log(lease.epoch); // 1
 * ```
 */
export interface RunLease {
  /** The run the lease is for. */
  readonly runId: string;
  /** The holder's secret. */
  readonly token: string;
  /** The lease's fencing token: a positive integer, higher than that of every earlier lease of the run. */
  readonly epoch: number;
  /** When the lease becomes takeable unless renewed, in ms on the store's clock. */
  readonly expiresAt: number;
}

/**
 * Options of {@link RunStore.acquireLease}.
 *
 * @example
 * ```ts
 * import { MemoryRunStore, type RunLeaseOptions } from '@rxagents/core';
 *
 * const options: RunLeaseOptions = { owner: 'registry-a' };
 * const lease = await new MemoryRunStore().acquireLease('r1', 30_000, options);
 * console.log(lease.epoch); // 1
 * ```
 */
export interface RunLeaseOptions {
  /**
   * The holder's stable identity (a registry's or a service's name, the same across its restarts and
   * hosts): a lease held under the same `owner` is taken at once, with a higher epoch, instead of
   * waiting for it to lapse, so a restarted process takes its runs back without delay and the process it
   * replaced, should it still run somewhere, is fenced out. Give each concurrently running process its
   * own owner: two live processes with one owner take each other's runs. Up to 200 characters, not blank.
   */
  readonly owner?: string;
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
 *   current one (another process took it, or it was released, or the run deleted), so a process that
 *   lost its lease cannot write into a run another process took over. A lease that merely lapsed is
 *   still the run's until someone takes it: a holder whose event loop stalled past its lease goes on.
 * - `read` yields the records from `fromSeq` (default 0) to the end as it is when reading starts, in order.
 * - `acquireLease` gives a lease when none is held, the held one lapsed, its holder is a process of this
 *   host that exited, or it is held under the same `owner`; it rejects with `RunLeasedError` otherwise.
 *   Each lease's `epoch` is higher than every earlier one of the run (kept across releases, reset by
 *   `delete`). `renewLease` extends it, or rejects with `RunLeaseLostError`.
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
  /**
   * Takes the run's lease for `ttlMs`, with an epoch above every earlier lease of the run; rejects with
   * `RunLeasedError` (naming the holder and when its lease lapses) while another holder's lease lasts,
   * unless that holder is a process of this host that exited or holds it under `options.owner`.
   */
  acquireLease(runId: string, ttlMs: number, options?: RunLeaseOptions): Promise<RunLease>;
  /**
   * Extends a lease for `ttlMs` from now, also one that lapsed while nobody took it; rejects with
   * `RunLeaseLostError` once it is no longer the run's (another acquisition, a release, a delete).
   */
  renewLease(lease: RunLease, ttlMs: number): Promise<RunLease>;
  /** Gives the lease up (nothing happens when it is no longer the run's). */
  releaseLease(lease: RunLease): Promise<void>;
  /** Deletes the run `afterMs` from now. */
  expire(runId: string, afterMs: number): Promise<void>;
  /** Deletes the run and its lease now (nothing happens when there is no such run). */
  delete(runId: string): Promise<void>;
}
