import type { Stats } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import type { SchedulerLike } from 'rxjs';
import { ConfigError } from '../../errors/ConfigError';
import { RunJournalCorruptError } from '../../errors/RunJournalCorruptError';
import type { RunEvent, RunEventOf } from '../../events/RunEvent';
import type { RunSummary } from '../RunStore';
import { openIfExists, unlinkIfExists } from './fileOps';
import { inspectJournal, type JournalState } from './inspectJournal';
import { headerLine, recordLine } from './journalFormat';
import type { TornEnd } from './readJournal';
import { baseName, type RunFiles } from './runFiles';
import { writeAppend } from './writeAppend';

/** How many journals' states are remembered, so an append need not read the journal's end again. */
const REMEMBERED_JOURNALS = 1_024;

/** A journal's state, and the file's identity and length when it was known. */
interface Remembered {
  readonly ino: number;
  readonly size: number;
  readonly state: JournalState;
}

/** What a store's journals need from it. */
export interface JournalSettings {
  readonly directory: string;
  readonly sync: boolean;
  readonly scheduler: SchedulerLike;
  readonly reportTorn: (runId: string, file: string, torn: TornEnd) => void;
}

/**
 * A file store's appends and summaries: each reads the journal's state from its ends, or from memory
 * while the file is as this store left it (the same file, of the same length: only the lease holder
 * appends, and nothing else edits a journal in place).
 */
export class Journals {
  readonly #settings: JournalSettings;
  readonly #remembered = new Map<string, Remembered>();

  constructor(settings: JournalSettings) {
    this.#settings = settings;
  }

  /** Appends `events` (at least one) to `runId`'s journal as one write, creating it with its version line. */
  async append(runId: string, files: RunFiles, events: readonly RunEvent[]): Promise<void> {
    const handle = (await openIfExists(files.journal, 'r+')) ?? (await create(files, events));
    try {
      await this.#appendTo(runId, files, handle, events);
    } catch (error) {
      this.forget(files);
      throw error;
    } finally {
      await handle.close();
    }
  }

  /** The run's summary, or `undefined` when it has no journal (or none with a committed record). */
  async summary(files: RunFiles, runId: string | undefined): Promise<RunSummary | undefined> {
    const handle = await openIfExists(files.journal, 'r');
    if (handle === undefined) return undefined;
    try {
      const state = await this.#stateOf(files, handle, await handle.stat(), runId);
      if (state === undefined) return undefined;
      const { header } = state;
      return { runId: header.runId, name: header.name, status: state.status, records: state.records, createdAt: header.createdAt, updatedAt: state.updatedAt };
    } finally {
      await handle.close();
    }
  }

  /** Drops what is remembered of the run's journal (it was deleted, or an append failed). */
  forget(files: RunFiles): void {
    this.#remembered.delete(files.journal);
  }

  async #appendTo(runId: string, files: RunFiles, handle: FileHandle, events: readonly RunEvent[]): Promise<void> {
    const { directory, sync, scheduler, reportTorn } = this.#settings;
    const stats = await handle.stat();
    const state = await this.#stateOf(files, handle, stats, runId);
    const now = scheduler.now();
    let header = state?.header;
    let text = '';
    if (header === undefined) {
      header = { runId, name: opening(events).name, createdAt: now };
      text = headerLine(header);
      // A delete-at time left by a deletion a crash interrupted belongs to the old journal, not this one.
      await unlinkIfExists(files.expire);
    }
    const start = state?.end ?? 0;
    if (stats.size > start) reportTorn(runId, files.journal, { line: state === undefined ? 1 : state.records + 2, bytes: stats.size - start });
    let status = state?.status ?? 'running';
    const first = state?.records ?? 0;
    const last = events.length - 1;
    events.forEach((event, index) => {
      if (event.type === 'run-end' && event.parentCallId === null) status = event.success ? 'succeeded' : 'failed';
      text += recordLine(first + index, event, index === last ? { appendedAt: now, status } : undefined);
    });
    const bytes = Buffer.from(text, 'utf8');
    await writeAppend({ handle, size: stats.size, start, bytes, sync, directory: state === undefined ? directory : undefined });
    const end = start + bytes.length;
    this.#remember(files, { ino: stats.ino, size: end, state: { header, records: first + events.length, status, updatedAt: now, end } });
  }

  async #stateOf(files: RunFiles, handle: FileHandle, stats: Stats, runId: string | undefined): Promise<JournalState | undefined> {
    const { ino, size } = stats;
    const remembered = this.#remembered.get(files.journal);
    if (remembered !== undefined && remembered.ino === ino && remembered.size === size) return remembered.state;
    const state = await inspectJournal(handle, size, files.journal);
    if (state === undefined) return undefined;
    const named = state.header.runId;
    if (baseName(named) !== files.base || (runId !== undefined && named !== runId)) {
      throw new RunJournalCorruptError(files.journal, 1, `the version line names run ${JSON.stringify(named)}, whose journal this file is not`);
    }
    this.#remember(files, { ino, size, state });
    return state;
  }

  #remember(files: RunFiles, remembered: Remembered): void {
    this.#remembered.delete(files.journal);
    this.#remembered.set(files.journal, remembered);
    if (this.#remembered.size > REMEMBERED_JOURNALS) this.#remembered.delete(this.#remembered.keys().next().value as string);
  }
}

/** Creates the journal of a new run, refusing one whose first event is not the root's run-start. */
async function create(files: RunFiles, events: readonly RunEvent[]): Promise<FileHandle> {
  opening(events);
  return open(files.journal, 'a+');
}

/** The first event of a new journal: the root node's run-start, or a `ConfigError`. */
function opening(events: readonly RunEvent[]): RunEventOf<'run-start'> {
  const first = events[0] as RunEvent;
  if (first.type !== 'run-start' || first.parentCallId !== null) {
    throw new ConfigError('FileRunStore.append', [{ path: 'events[0]', rule: "must be the root node's run-start (parentCallId null) in a new journal", received: first.type }]);
  }
  return first;
}
