import type { Stats } from 'node:fs';
import { constants, type FileHandle, link, open } from 'node:fs/promises';
import type { SchedulerLike } from 'rxjs';
import { ConfigError } from '../../errors/ConfigError';
import { RunJournalCorruptError } from '../../errors/RunJournalCorruptError';
import { RunLeaseLostError } from '../../errors/RunLeaseLostError';
import type { RunEvent } from '../../events/RunEvent';
import { newRunId } from '../../events/ids';
import type { RunSummary } from '../RunStore';
import { errorCode, openIfExists, openRunFile, syncDirectory, unlinkIfExists } from './fileOps';
import { inspectJournal, type JournalState, readOpening, scanJournal } from './inspectJournal';
import { appendBytes, fenceBytes, headerLine } from './journalFormat';
import { countLines } from './journalLines';
import type { TornEnd } from './JournalScan';
import { baseName, type RunFiles } from './runFiles';
import { writeAppend } from './writeAppend';

/** How many journals' states are remembered, so an append need not read the journal's end again. */
const REMEMBERED_JOURNALS = 1_024;

/** Opened for appending: every write goes to the end of the file, wherever another process's went. */
const APPENDING = constants.O_RDWR | constants.O_APPEND;

/** A journal's state, and the file's identity and length when it was known. */
interface Remembered {
  readonly ino: number;
  readonly size: number;
  readonly state: JournalState;
  readonly opening?: { readonly name: string; readonly createdAt: number };
}

/** What a store's journals need from it. */
export interface JournalSettings {
  readonly directory: string;
  readonly sync: boolean;
  readonly scheduler: SchedulerLike;
  readonly reportTorn: (runId: string, file: string, torn: TornEnd) => void;
}

/** The epoch no line of a journal exceeds, when known: read after the journal's length (see `inspectJournal`). */
export type EpochHint = () => Promise<number | undefined>;

/**
 * Cuts an append that failed part way back off the journal, when that cannot remove another writer's
 * bytes: given the journal's length before the write and how much of it was written.
 */
export type CutBack = (before: number, written: number) => Promise<void>;

/**
 * A file store's appends, fences and summaries: each reads the journal's state from its ends, or from
 * memory while the file is as this store left it (the same file, of the same length).
 */
export class Journals {
  readonly #settings: JournalSettings;
  readonly #remembered = new Map<string, Remembered>();

  constructor(settings: JournalSettings) {
    this.#settings = settings;
  }

  /**
   * Appends `events` (at least one) under `epoch` (0: no lease) as one write at the journal's end,
   * creating the journal with its version line. Refuses with `RunLeaseLostError`, writing nothing, when
   * the journal already holds a newer epoch: its records would be stale.
   */
  async append(runId: string, files: RunFiles, events: readonly RunEvent[], epoch: number, hint: EpochHint, cutBack: CutBack): Promise<void> {
    const { sync, scheduler, directory } = this.#settings;
    const now = scheduler.now();
    let handle = await openIfExists(files.journal, APPENDING);
    if (handle === undefined) {
      const status = statusAfter('running', events);
      const bytes = Buffer.concat([Buffer.from(headerLine({ runId }), 'utf8'), appendBytes(0, epoch, opening(events), { appendedAt: now, status })]);
      if (await this.#create(files, bytes)) return;
      handle = await openRunFile(files.journal, APPENDING);
    }
    try {
      const stats = await handle.stat();
      const state = await this.#stateOf(files, handle, stats, runId, epoch > 0 ? () => Promise.resolve(epoch) : hint);
      if (state === undefined) {
        // An empty file (one a crash left before its first write reached the disk) is started anew.
        if (stats.size > 0) throw new RunJournalCorruptError(files.journal, 1, "has no version line (its first write was cut short): take the run's lease to start it again");
        const status = statusAfter('running', events);
        const bytes = Buffer.concat([Buffer.from(headerLine({ runId }), 'utf8'), appendBytes(0, epoch, opening(events), { appendedAt: now, status })]);
        await writeAppend({ handle, bytes, sync, directory, cutBack: (written) => cutBack(0, written) });
        return;
      }
      if (epoch > 0 && state.epoch > epoch) throw new RunLeaseLostError(runId);
      // A journal a lease created holds fences only until the run's first append: its root's run-start.
      if (state.records === 0) opening(events);
      const status = statusAfter(state.status, events);
      const bytes = appendBytes(state.records, epoch, events, { appendedAt: now, status });
      await writeAppend({ handle, bytes, sync, directory: undefined, cutBack: (written) => cutBack(stats.size, written) });
      const size = stats.size + bytes.length;
      this.#remember(files, { ino: stats.ino, size, state: { ...state, records: state.records + events.length, status, updatedAt: now, epoch: Math.max(state.epoch, epoch), end: size } });
    } catch (error) {
      this.forget(files);
      throw error;
    } finally {
      await handle.close();
    }
  }

  /**
   * The highest epoch the run's journal holds (0 when it has none), read exactly. `previous` is the
   * epoch of the run's last lease, when there was one.
   */
  async highestEpoch(runId: string, files: RunFiles, previous: number | undefined): Promise<number> {
    const handle = await openIfExists(files.journal, 'r');
    if (handle === undefined) return 0;
    try {
      const state = await this.#stateOf(files, handle, await handle.stat(), runId, () => Promise.resolve(previous));
      if (state === undefined || state.exact) return state?.epoch ?? 0;
      this.forget(files);
      // Without a lease history the end cannot rule out a newer epoch further back: read it all.
      return (await scanJournal(handle, (await handle.stat()).size, files.journal))?.epoch ?? 0;
    } finally {
      await handle.close();
    }
  }

  /**
   * Writes the fence of a new lease of `epoch` (taken under the run's lock), creating the journal when
   * it has none: first cutting off a torn end, the only time anything is cut from a journal but a
   * failed append's own bytes.
   */
  async fence(runId: string, files: RunFiles, epoch: number): Promise<void> {
    const { scheduler } = this.#settings;
    const now = scheduler.now();
    const fence = fenceBytes(epoch, now);
    let handle = await openIfExists(files.journal, APPENDING);
    if (handle === undefined) {
      const bytes = Buffer.concat([Buffer.from(headerLine({ runId }), 'utf8'), fence]);
      if (await this.#create(files, bytes)) return;
      handle = await openRunFile(files.journal, APPENDING);
    }
    try {
      const stats = await handle.stat();
      const state = await this.#stateOf(files, handle, stats, runId, () => Promise.resolve(epoch - 1));
      const end = state?.end ?? 0;
      if (stats.size > end) {
        this.#settings.reportTorn(runId, files.journal, { line: state === undefined ? 1 : (await countLines(handle, end)) + 1, bytes: stats.size - end });
        // Only if nothing was appended since the journal was read: bytes after the torn end are another's.
        if ((await handle.stat()).size === stats.size) await handle.truncate(end);
      }
      const bytes = state === undefined ? Buffer.concat([Buffer.from(headerLine({ runId }), 'utf8'), fence]) : fence;
      await writeAppend({ handle, bytes, sync: this.#settings.sync, directory: undefined, cutBack: () => Promise.resolve() });
      const after = await handle.stat();
      this.forget(files);
      if (state !== undefined && after.size === end + bytes.length) this.#remember(files, { ino: after.ino, size: after.size, state: { ...state, epoch, exact: true, end: after.size } });
    } finally {
      await handle.close();
    }
  }

  /** The run's summary, or `undefined` when it has no journal (or none with a counted record). */
  async summary(files: RunFiles, runId: string | undefined, hint: EpochHint): Promise<RunSummary | undefined> {
    const handle = await openIfExists(files.journal, 'r');
    if (handle === undefined) return undefined;
    try {
      const stats = await handle.stat();
      const state = await this.#stateOf(files, handle, stats, runId, hint);
      if (state === undefined || state.records === 0 || state.updatedAt === undefined) return undefined;
      const remembered = this.#remembered.get(files.journal);
      let opening = remembered?.ino === stats.ino ? remembered.opening : undefined;
      if (opening === undefined) {
        opening = await readOpening(handle, stats.size, files.journal);
        if (opening === undefined) return undefined;
        if (remembered?.ino === stats.ino) this.#remembered.set(files.journal, { ...remembered, opening });
      }
      return { runId: state.header.runId, name: opening.name, status: state.status, records: state.records, createdAt: opening.createdAt, updatedAt: state.updatedAt };
    } finally {
      await handle.close();
    }
  }

  /** Drops what is remembered of the run's journal (it was deleted, or an append failed). */
  forget(files: RunFiles): void {
    this.#remembered.delete(files.journal);
  }

  /** Creates the journal holding `bytes`, all at once (written aside, then linked into place); `false` when it exists. */
  async #create(files: RunFiles, bytes: Buffer): Promise<boolean> {
    const temporary = `${files.journal}.${newRunId()}.tmp`;
    try {
      const handle = await open(temporary, 'wx');
      try {
        await handle.writeFile(bytes);
        if (this.#settings.sync) await handle.datasync();
      } finally {
        await handle.close();
      }
      try {
        await link(temporary, files.journal);
      } catch (error) {
        if (errorCode(error) === 'EEXIST') return false;
        throw error;
      }
    } finally {
      await unlinkIfExists(temporary).catch(() => undefined);
    }
    // A delete-at time left by a deletion a crash interrupted belongs to the old journal, not this one.
    await unlinkIfExists(files.expire);
    if (this.#settings.sync) await syncDirectory(this.#settings.directory);
    return true;
  }

  async #stateOf(files: RunFiles, handle: FileHandle, stats: Stats, runId: string | undefined, hint: EpochHint): Promise<JournalState | undefined> {
    const { ino, size } = stats;
    const remembered = this.#remembered.get(files.journal);
    if (remembered !== undefined && remembered.ino === ino && remembered.size === size) return remembered.state;
    const state = await inspectJournal(handle, size, files.journal, await hint());
    if (state === undefined) return undefined;
    const named = state.header.runId;
    if (baseName(named) !== files.base || (runId !== undefined && named !== runId)) {
      throw new RunJournalCorruptError(files.journal, 1, `the version line names run ${JSON.stringify(named)}, whose journal this file is not`);
    }
    this.#remember(files, { ino, size, state, ...(remembered?.ino === ino && remembered.opening !== undefined ? { opening: remembered.opening } : {}) });
    return state;
  }

  #remember(files: RunFiles, remembered: Remembered): void {
    const previous = this.#remembered.get(files.journal);
    this.#remembered.delete(files.journal);
    const kept = remembered.opening === undefined && previous?.ino === remembered.ino && previous.opening !== undefined ? { ...remembered, opening: previous.opening } : remembered;
    this.#remembered.set(files.journal, kept);
    if (this.#remembered.size > REMEMBERED_JOURNALS) this.#remembered.delete(this.#remembered.keys().next().value as string);
  }
}

/** The run's status after `events`. */
function statusAfter(status: JournalState['status'], events: readonly RunEvent[]): JournalState['status'] {
  let after = status;
  for (const event of events) if (event.type === 'run-end' && event.parentCallId === null) after = event.success ? 'succeeded' : 'failed';
  return after;
}

/** The events of a new journal, refusing them unless the first is the root node's run-start (a `ConfigError`). */
function opening(events: readonly RunEvent[]): readonly RunEvent[] {
  const first = events[0] as RunEvent;
  if (first.type !== 'run-start' || first.parentCallId !== null) {
    throw new ConfigError('FileRunStore.append', [{ path: 'events[0]', rule: "must be the root node's run-start (parentCallId null) in a new journal", received: first.type }]);
  }
  return events;
}
