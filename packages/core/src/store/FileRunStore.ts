import { mkdir, readdir } from 'node:fs/promises';
import { resolve } from 'node:path';
import { asyncScheduler, type SchedulerLike } from 'rxjs';
import * as z from 'zod';
import * as configRules from '../configRules';
import { ConfigError } from '../errors/ConfigError';
import { RunLeasedError } from '../errors/RunLeasedError';
import { RunLeaseLostError } from '../errors/RunLeaseLostError';
import type { RunEvent } from '../events/RunEvent';
import { newRunId } from '../events/ids';
import { safeParseRunEvent } from '../events/safeParseRunEvent';
import { parseConfig } from '../parseConfig';
import { reportUnhandledError } from '../reportUnhandledError';
import { errorCode, exists, openIfExists, storeFailure, unlinkIfExists, writeAtomically } from './file/fileOps';
import { flatten } from './file/flatten';
import { Journals } from './file/Journals';
import { readJournal, type TornEnd } from './file/readJournal';
import { filesOf, JOURNAL_FILE, type RunFiles, runFiles } from './file/runFiles';
import { HOST, processIsGone } from './file/processes';
import { type LockSettings, withRunLock } from './file/runLock';
import { expireText, type HeldLease, leaseText, readDeleteAt, readLease } from './file/sideFiles';
import { sweepTemporaries } from './file/temporaryFiles';
import { type FileRunStoreOptions, FileRunStoreOptionsSchema, type TornRecordReport } from './FileRunStoreOptions';
import { RunLeaseOptionsSchema } from './RunLeaseOptionsSchema';
import type { RunLease, RunLeaseHolder, RunLeaseOptions, RunListOptions, RunRecord, RunStore, RunSummary } from './RunStore';

/**
 * A {@link RunStore} in a directory: one append-only JSON-lines journal per run, for a run that must
 * outlive its process on one machine (the embedded default).
 *
 * @remarks
 * - **Files.** A run's files are named from its id escaped (`r-` and the id with every character other
 *   than `a-z`, `0-9` and `-` written as `_` and its UTF-8 bytes in hex) or, for an id too long for a
 *   file name, its SHA-256 (`h-...`): no id can reach outside the directory. Beside the journal
 *   (`.jsonl`) are the lease (`.lease`), the lease lock (`.lock`) and the delete-at time (`.expire`).
 * - **Journal.** Its first line is a version line (`{"rxagentsJournal":1,"runId":...,"name":...,"createdAt":...}`);
 *   a journal without it, or of another version, is refused with `RunJournalVersionError`. Then one line
 *   per record; the last line of each append also carries the append's time and the run's status.
 * - **Appends** are one write of all their lines, all or none: a write that fails part way (a full disk,
 *   `ENOSPC`) is cut back off the file before `append` rejects with `RunStoreError` (retryable for a
 *   full disk or an I/O error). When an append counts as done is `durability`. An event that breaks
 *   `RunEventSchema`'s rules is refused with `ConfigError` before anything is written: it could not be
 *   read back.
 * - **Reads** stream the file a 64 KiB chunk at a time, to its length when the read starts, and check
 *   every record against `RunEventSchema`'s rules (it comes from disk). An end a crash tore (a line
 *   without its newline, or lines after the last complete append) is dropped and reported to
 *   `onTornRecord`; the next append cuts it off. A bad line followed by good ones is damage:
 *   `RunJournalCorruptError`, naming the file and the line.
 * - **Summaries** (`summary`, `list`) read only the version line and the journal's end, never the
 *   records between.
 * - **Leases** are taken, renewed and released inside a lock file that appears whole or not at all
 *   (written aside, then hard-linked to its name, which fails while another process holds it), so two
 *   processes never both get one; the lease file (the holder's token, the lease's epoch, when it lapses,
 *   and the holder's host, pid and owner) is replaced atomically (written aside, then renamed), and kept
 *   after a release so that the next lease's epoch is higher. A lease whose holder is a process of this
 *   host that exited is free at once. An append under a lease reads the lease file first (unless this
 *   store holds it, without an owner, and it has not lapsed). Lease expiry, `expire` and
 *   `createdAt`/`updatedAt` are on the store's scheduler; processes sharing a directory need clocks that
 *   agree (the default, `asyncScheduler`, is the wall clock).
 * - **Links.** Every run file is opened without following a symbolic link (`O_NOFOLLOW`) and only when
 *   it is a regular file: a link or anything else found where a run file belongs is refused with a
 *   `RunStoreError` naming it, and left untouched. A temporary file an exited process of this host left
 *   in the directory is removed when a store first writes there.
 * - **Expiry.** `expire` writes a delete-at time that every later access (and `list`) honours.
 *
 * Node only (it uses `node:fs`): it is imported from `@rxagents/core/file-store`, so browser bundles of
 * `@rxagents/core` never include it. Appends to one run are made by one writer at a time (the lease
 * holder), as the {@link RunStore} contract says.
 *
 * @example
 * ```ts
 * import { mkdtempSync, rmSync } from 'node:fs';
 * import { tmpdir } from 'node:os';
 * import { join } from 'node:path';
 * import { FileRunStore } from '@rxagents/core/file-store';
 *
 * const directory = mkdtempSync(join(tmpdir(), 'runs-'));
 * const store = new FileRunStore({ directory });
 * await store.append('r1', [{ type: 'run-start', runId: 'r1', callId: 'run', parentCallId: null, at: 0, name: 'story', input: 'go' }]);
 * for await (const record of store.read('r1')) console.log(record.seq, record.event.type); // 0 run-start
 * console.log((await store.summary('r1'))?.records); // 1
 * rmSync(directory, { recursive: true, force: true });
 * ```
 */
export class FileRunStore implements RunStore {
  /** The directory of the journals, as an absolute path. */
  readonly directory: string;
  readonly #sync: boolean;
  readonly #scheduler: SchedulerLike;
  readonly #onTorn: ((report: TornRecordReport) => void) | undefined;
  readonly #lock: LockSettings;
  readonly #queues = new Map<string, Promise<unknown>>();
  readonly #journals: Journals;
  /** The leases this store took or renewed, by the base name of their run's files. */
  readonly #held = new Map<string, HeldLease>();
  #ready: Promise<unknown> | undefined;

  constructor(options: FileRunStoreOptions) {
    const parsed = parseConfig(FileRunStoreOptionsSchema, options, 'FileRunStore');
    this.directory = resolve(parsed.directory);
    this.#sync = parsed.durability === 'fsync';
    this.#scheduler = parsed.scheduler ?? asyncScheduler;
    this.#onTorn = parsed.onTornRecord;
    this.#lock = { scheduler: this.#scheduler, staleLockMs: parsed.staleLockMs ?? 10_000 };
    this.#journals = new Journals({ directory: this.directory, sync: this.#sync, scheduler: this.#scheduler, reportTorn: (runId, file, torn) => this.#reportTorn(runId, file, torn) });
  }

  async append(runId: string, events: readonly RunEvent[], lease?: RunLease): Promise<void> {
    checkRunId(runId, 'append');
    checkEvents(events);
    await this.#exclusive(runId, 'append', async (files) => {
      if (lease !== undefined) await this.#checkLease(runId, files, lease);
      if (events.length === 0) return;
      await this.#ensureDirectory();
      await this.#live(files);
      await this.#journals.append(runId, files, events);
    });
  }

  read(runId: string, fromSeq = 0): AsyncIterable<RunRecord> {
    return flatten(this.#readBatches(runId, fromSeq));
  }

  async summary(runId: string): Promise<RunSummary | undefined> {
    checkRunId(runId, 'summary');
    return this.#exclusive(runId, 'summary', async (files) => ((await this.#live(files)) ? this.#journals.summary(files, runId) : undefined));
  }

  async list(options: RunListOptions = {}): Promise<readonly RunSummary[]> {
    const { status } = parseConfig(RunListOptionsSchema, options, 'FileRunStore.list');
    let names: string[];
    try {
      names = await readdir(this.directory);
    } catch (error) {
      if (errorCode(error) === 'ENOENT') return [];
      throw storeFailure('list', undefined, error);
    }
    const summaries: RunSummary[] = [];
    for (const name of names.filter((each) => JOURNAL_FILE.test(each)).sort()) {
      const files = filesOf(this.directory, name.slice(0, -'.jsonl'.length));
      try {
        const summary = (await this.#live(files)) ? await this.#journals.summary(files, undefined) : undefined;
        if (summary !== undefined && (status === undefined || summary.status === status)) summaries.push(summary);
      } catch (error) {
        throw storeFailure('list', undefined, error);
      }
    }
    return summaries.sort((a, b) => a.createdAt - b.createdAt);
  }

  async acquireLease(runId: string, ttlMs: number, options: RunLeaseOptions = {}): Promise<RunLease> {
    checkRunId(runId, 'acquireLease');
    checkTtl(ttlMs, 'acquireLease');
    const { owner } = parseConfig(RunLeaseOptionsSchema, options, 'FileRunStore.acquireLease options');
    return this.#exclusive(runId, 'acquireLease', async (files) => {
      await this.#ensureDirectory();
      return withRunLock(files.lock, this.#lock, async () => {
        const now = this.#scheduler.now();
        const held = await readLease(files.lease);
        if (held?.token !== undefined && !takeable(held, now, owner)) throw new RunLeasedError(runId, held.expiresAt, { now, holder: held.holder });
        const holder: RunLeaseHolder = owner === undefined ? { host: HOST, pid: process.pid } : { host: HOST, pid: process.pid, owner };
        const lease: HeldLease = { token: newRunId(), epoch: (held?.epoch ?? 0) + 1, expiresAt: now + ttlMs, holder };
        await writeAtomically(files.lease, leaseText(runId, lease), this.#sync);
        this.#held.set(files.base, lease);
        return publicLease(runId, lease);
      });
    });
  }

  async renewLease(lease: RunLease, ttlMs: number): Promise<RunLease> {
    checkTtl(ttlMs, 'renewLease');
    const runId = lease?.runId;
    if (typeof runId !== 'string' || runId.trim() === '') throw new RunLeaseLostError(String(runId));
    return this.#exclusive(runId, 'renewLease', async (files) => {
      await this.#ensureDirectory();
      return withRunLock(files.lock, this.#lock, async () => {
        const held = await this.#checkLeaseFile(runId, files, lease);
        const renewed: HeldLease = { ...held, expiresAt: this.#scheduler.now() + ttlMs };
        await writeAtomically(files.lease, leaseText(runId, renewed), this.#sync);
        this.#held.set(files.base, renewed);
        return publicLease(runId, renewed);
      });
    });
  }

  async releaseLease(lease: RunLease): Promise<void> {
    const runId = lease?.runId;
    if (typeof runId !== 'string' || runId.trim() === '') return;
    await this.#exclusive(runId, 'releaseLease', async (files) => {
      if (this.#held.get(files.base)?.token === lease.token) this.#held.delete(files.base);
      if ((await readLease(files.lease))?.token !== lease.token) return;
      await withRunLock(files.lock, this.#lock, async () => {
        const held = await readLease(files.lease);
        // The file stays, without a holder: the run's next lease is of a higher epoch.
        if (held !== undefined && held.token === lease.token) await writeAtomically(files.lease, leaseText(runId, { ...held, token: undefined, expiresAt: this.#scheduler.now() }), this.#sync);
      });
    });
  }

  async expire(runId: string, afterMs: number): Promise<void> {
    checkRunId(runId, 'expire');
    parseConfig(configRules.delayMs(), afterMs, 'FileRunStore.expire afterMs');
    await this.#exclusive(runId, 'expire', async (files) => {
      if (!(await this.#live(files)) || !(await exists(files.journal))) return;
      await writeAtomically(files.expire, expireText(this.#scheduler.now() + afterMs), this.#sync);
    });
  }

  async delete(runId: string): Promise<void> {
    checkRunId(runId, 'delete');
    await this.#exclusive(runId, 'delete', async (files) => {
      if (!(await exists(this.directory))) return;
      await withRunLock(files.lock, this.#lock, () => this.#deleteFiles(files));
    });
  }

  async *#readBatches(runId: string, fromSeq: number): AsyncGenerator<readonly RunRecord[]> {
    checkRunId(runId, 'read');
    if (!Number.isInteger(fromSeq) || fromSeq < 0) throw new ConfigError('FileRunStore.read', [{ path: 'fromSeq', rule: 'must be a non-negative integer', received: fromSeq }]);
    const opened = await this.#exclusive(runId, 'read', async (files) => {
      if (!(await this.#live(files))) return undefined;
      const handle = await openIfExists(files.journal, 'r');
      return handle === undefined ? undefined : { handle, size: (await handle.stat()).size, file: files.journal };
    });
    if (opened === undefined) return;
    try {
      yield* readJournal(opened.handle, opened.size, opened.file, runId, fromSeq, (torn) => this.#reportTorn(runId, opened.file, torn));
    } catch (error) {
      throw storeFailure('read', runId, error);
    } finally {
      await opened.handle.close();
    }
  }

  /**
   * Refuses `lease` unless it is the run's. A lease without an owner that this store took or renewed and
   * that has not lapsed on its clock is the run's without reading the file: no other process can take it
   * before then. One with an owner can be taken at once by another process under that owner, and one
   * that lapsed by anyone, so for those the file says.
   */
  async #checkLease(runId: string, files: RunFiles, lease: RunLease): Promise<void> {
    const mine = this.#held.get(files.base);
    if (mine !== undefined && mine.token === lease?.token && mine.holder.owner === undefined && mine.expiresAt > this.#scheduler.now()) return;
    await this.#checkLeaseFile(runId, files, lease);
  }

  /** The lease file's lease when it is `lease` (lapsed or not: a lapsed lease nobody took is still its holder's). */
  async #checkLeaseFile(runId: string, files: RunFiles, lease: RunLease): Promise<HeldLease> {
    const held = await readLease(files.lease);
    if (held === undefined || held.token === undefined || held.token !== lease?.token) {
      this.#held.delete(files.base);
      throw new RunLeaseLostError(runId);
    }
    return held;
  }

  /** Whether the run is not past its delete-at time; a run that is, is deleted now. */
  async #live(files: RunFiles): Promise<boolean> {
    if (this.#scheduler.now() < (await readDeleteAt(files.expire))) return true;
    await this.#deleteFiles(files);
    return false;
  }

  async #deleteFiles(files: RunFiles): Promise<void> {
    this.#journals.forget(files);
    this.#held.delete(files.base);
    await unlinkIfExists(files.expire);
    await unlinkIfExists(files.journal);
    await unlinkIfExists(files.lease);
  }

  /** Creates the directory once, then removes the temporary files that exited processes left in it. */
  #ensureDirectory(): Promise<unknown> {
    this.#ready ??= mkdir(this.directory, { recursive: true }).then(
      () => sweepTemporaries(this.directory, unlinkIfExists).catch(noop),
      (error: unknown) => {
        this.#ready = undefined;
        throw error;
      },
    );
    return this.#ready;
  }

  #reportTorn(runId: string, file: string, torn: TornEnd): void {
    const report: TornRecordReport = { runId, file, line: torn.line, bytes: torn.bytes };
    try {
      if (this.#onTorn !== undefined) this.#onTorn(report);
      else process.emitWarning(`Run journal ${file} ends with an append a crash cut short: ${torn.bytes} bytes from line ${torn.line} were dropped`, { code: 'RUN_JOURNAL_TORN' });
    } catch (error) {
      reportUnhandledError(error);
    }
  }

  /** Runs `work` after every earlier operation of this store on the run, mapping failures to the store's errors. */
  #exclusive<T>(runId: string, operation: string, work: (files: RunFiles) => Promise<T>): Promise<T> {
    const run = async (): Promise<T> => {
      try {
        return await work(runFiles(this.directory, runId));
      } catch (error) {
        throw storeFailure(operation, runId, error);
      }
    };
    const previous = this.#queues.get(runId);
    const result = previous === undefined ? run() : previous.then(run, run);
    const settled = result.then(noop, noop);
    this.#queues.set(runId, settled);
    void settled.then(() => {
      if (this.#queues.get(runId) === settled) this.#queues.delete(runId);
    });
    return result;
  }
}

const RunListOptionsSchema = z.strictObject({ status: z.enum(['running', 'succeeded', 'failed']).optional() }, { error: 'must be an object' });

const noop = (): void => undefined;

/** Whether a held lease may be taken now: it lapsed, its holder is a process of this host that exited, or it is held under `owner`. */
function takeable(held: HeldLease, now: number, owner: string | undefined): boolean {
  return held.expiresAt <= now || processIsGone(held.holder.host, held.holder.pid) || (owner !== undefined && held.holder.owner === owner);
}

function publicLease(runId: string, lease: HeldLease): RunLease {
  return { runId, token: lease.token as string, epoch: lease.epoch, expiresAt: lease.expiresAt };
}

function checkRunId(runId: unknown, operation: string): void {
  if (typeof runId !== 'string' || runId.trim() === '') throw new ConfigError(`FileRunStore.${operation}`, [{ path: 'runId', rule: 'must be a non-blank string', received: runId }]);
}

function checkEvents(events: unknown): void {
  if (!Array.isArray(events)) throw new ConfigError('FileRunStore.append', [{ path: 'events', rule: 'must be an array of run events', received: events }]);
  events.forEach((event, index) => {
    const checked = safeParseRunEvent(event);
    if (!checked.success) {
      const issue = checked.error.issues[0];
      throw new ConfigError('FileRunStore.append', [{ path: [`events[${index}]`, ...(issue?.path ?? []).map(String)].join('.'), rule: issue?.message ?? 'must be a run event', received: event }]);
    }
  });
}

function checkTtl(ttlMs: unknown, operation: string): void {
  parseConfig(configRules.timeoutMs(), ttlMs, `FileRunStore.${operation} ttlMs`);
}
