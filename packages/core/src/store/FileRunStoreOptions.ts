import type { SchedulerLike } from 'rxjs';
import * as z from 'zod';
import * as configRules from '../configRules';

/**
 * When a {@link FileRunStore} append counts as done: `'process'` once the operating system has the
 * write, `'fsync'` once the disk has it.
 *
 * @remarks
 * - `'process'` (the default): the append's bytes were handed to the OS in one write. They survive the
 *   process being killed (a crash, `SIGKILL`, a deploy), because the OS writes them out on its own, but
 *   not a power loss or an OS crash in the next seconds. It costs no disk flush per append, so a run's
 *   journal keeps up with its events.
 * - `'fsync'`: each append waits for `fdatasync` (and a new journal for its directory entry to be
 *   synced), so an append that resolved survives a power loss. Each append then costs a disk flush
 *   (from well under a millisecond on an SSD to tens of milliseconds on a network disk); a run's appends
 *   are batched, so that is paid per batch, not per event.
 *
 * @example
 * ```ts
 * import type { FileRunStoreDurability } from '@rxagents/core/file-store';
 *
 * const durability: FileRunStoreDurability = 'fsync';
 * console.log(durability); // fsync
 * ```
 */
export type FileRunStoreDurability = 'process' | 'fsync';

/**
 * Bytes the {@link FileRunStore} found in a journal and dropped: an append a crash or a failed write cut
 * short (at the journal's end, or followed by later appends).
 *
 * @example
 * ```ts
 * import type { TornRecordReport } from '@rxagents/core/file-store';
 *
 * const report: TornRecordReport = { runId: 'r1', file: '/var/runs/r-r1.jsonl', line: 14, bytes: 37 };
 * console.log(`${report.file}: dropped ${report.bytes} bytes from line ${report.line}`);
 * ```
 */
export interface TornRecordReport {
  /** The run whose journal it is. */
  readonly runId: string;
  /** The journal file. */
  readonly file: string;
  /** The 1-based line where the dropped bytes start. */
  readonly line: number;
  /** How many bytes were dropped. */
  readonly bytes: number;
}

/**
 * What reading journals has cost a {@link FileRunStore} so far (see `FileRunStore.readStats`).
 *
 * @example
 * ```ts
 * import type { FileRunStoreReadStats } from '@rxagents/core/file-store';
 *
 * const stats: FileRunStoreReadStats = { reads: 3, lines: 1_200, bytes: 96_000 };
 * console.log(stats.lines / stats.reads); // 400
 * ```
 */
export interface FileRunStoreReadStats {
  /** How many reads (`read` calls that found a journal) began. */
  readonly reads: number;
  /** How many complete lines they parsed. */
  readonly lines: number;
  /** How many bytes those lines hold. */
  readonly bytes: number;
}

/**
 * Records the {@link FileRunStore} found in a journal and skipped because a process that had lost the
 * run's lease wrote them: one whole append of an epoch older than one the journal already held.
 *
 * @remarks
 * A process paused past its lease (a GC pause, a frozen VM, `SIGSTOP`) may finish a write it had begun
 * after another process took the run over. Its records are never replayed or counted; this report says
 * they were there.
 *
 * @example
 * ```ts
 * import type { StaleRecordReport } from '@rxagents/core/file-store';
 *
 * const report: StaleRecordReport = { runId: 'r1', file: '/var/runs/r-r1.jsonl', line: 40, records: 3, epoch: 2, currentEpoch: 3 };
 * console.log(`${report.file}: skipped ${report.records} records of epoch ${report.epoch} from line ${report.line}`);
 * ```
 */
export interface StaleRecordReport {
  /** The run whose journal it is. */
  readonly runId: string;
  /** The journal file. */
  readonly file: string;
  /** The 1-based line where the stale append starts. */
  readonly line: number;
  /** How many records it holds. */
  readonly records: number;
  /** The epoch of the lease it was written under. */
  readonly epoch: number;
  /** The newest epoch the journal held before it. */
  readonly currentEpoch: number;
}

/**
 * Options of {@link FileRunStore}.
 *
 * @example
 * ```ts
 * import { mkdtempSync, rmSync } from 'node:fs';
 * import { tmpdir } from 'node:os';
 * import { join } from 'node:path';
 * import { FileRunStore, type FileRunStoreOptions } from '@rxagents/core/file-store';
 *
 * const directory = mkdtempSync(join(tmpdir(), 'runs-'));
 * const options: FileRunStoreOptions = { directory, durability: 'fsync', onTornRecord: (report) => console.warn(report) };
 * console.log(new FileRunStore(options).directory === directory); // true
 * rmSync(directory, { recursive: true, force: true });
 * ```
 */
export interface FileRunStoreOptions {
  /** The directory of the journals (created when first written to). One store per directory per process. */
  readonly directory: string;
  /** When an append counts as done (see {@link FileRunStoreDurability}). Defaults to `'process'`. */
  readonly durability?: FileRunStoreDurability;
  /** The clock of `createdAt`, `updatedAt`, lease expiry, `expire` and lock waits. Defaults to `asyncScheduler`. */
  readonly scheduler?: SchedulerLike;
  /**
   * Called when a read or an append finds a torn end (an append a crash cut short) and drops it.
   * Defaults to a Node process warning (`process.emitWarning`, code `RUN_JOURNAL_TORN`).
   */
  readonly onTornRecord?: (report: TornRecordReport) => void;
  /**
   * Called when a read finds records written under a lease that another one had already replaced, and
   * skips them. Defaults to a Node process warning (`process.emitWarning`, code `RUN_JOURNAL_STALE`).
   */
  readonly onStaleRecord?: (report: StaleRecordReport) => void;
  /**
   * A lease lock another process has held unchanged for this long is taken to be left by a process that
   * stopped, and is broken (one whose holder is a process of this host that exited is broken at once).
   * Defaults to 10,000 ms.
   */
  readonly staleLockMs?: number;
}

/**
 * The zod schema of {@link FileRunStoreOptions}.
 *
 * @example
 * ```ts
 * import { FileRunStoreOptionsSchema } from '@rxagents/core/file-store';
 *
 * console.log(FileRunStoreOptionsSchema.safeParse({ directory: '/var/runs', durability: 'always' }).success); // false
 * ```
 */
export const FileRunStoreOptionsSchema = z.strictObject(
  {
    directory: configRules.id(),
    durability: z.enum(['process', 'fsync'], { error: "must be 'process' or 'fsync'" }).optional(),
    scheduler: configRules.scheduler().optional(),
    onTornRecord: configRules.function<(report: TornRecordReport) => void>().optional(),
    onStaleRecord: configRules.function<(report: StaleRecordReport) => void>().optional(),
    staleLockMs: configRules.timeoutMs().optional(),
  },
  { error: 'must be an object' },
);
