import type { Stats } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { RunJournalCorruptError } from '../../errors/RunJournalCorruptError';
import type { RunRecord } from '../RunStore';
import { JournalOffsets } from './JournalOffsets';
import { type ReadCounts, readJournal } from './readJournal';
import type { ScanReports, TornEnd } from './JournalScan';

/** One read of a journal: the open file and what its stat said when the read began. */
export interface OpenJournal {
  readonly handle: FileHandle;
  readonly stats: Stats;
  readonly file: string;
}

/**
 * A file store's reads of its journals: each starts at the nearest place before `fromSeq` that earlier
 * reads learnt ({@link JournalOffsets}), and all of them are counted (`stats`).
 */
export class JournalReads {
  readonly #offsets = new JournalOffsets();
  readonly #counts: ReadCounts & { reads: number } = { reads: 0, lines: 0, bytes: 0 };

  /** What the reads have cost so far. */
  stats(): { readonly reads: number; readonly lines: number; readonly bytes: number } {
    return { ...this.#counts };
  }

  /** Drops what is known of `file` (it was deleted). */
  forget(file: string): void {
    this.#offsets.forget(file);
  }

  /**
   * The records of `journal` from `fromSeq`. Bytes after the last complete append are reported as torn
   * only when `leased()` says no lease of the run lasts: while one does, they are most likely an append
   * its holder is writing (a reader following a live run finds one often), reported later if torn after all.
   */
  async *read(journal: OpenJournal, runId: string, fromSeq: number, reports: ScanReports, leased: () => Promise<boolean>): AsyncGenerator<readonly RunRecord[]> {
    const { handle, stats, file } = journal;
    this.#counts.reads += 1;
    let torn: TornEnd | undefined;
    const options = { counts: this.#counts, onPosition: this.#offsets.add.bind(this.#offsets, file, stats), tornEnd: (found: TornEnd) => void (torn = found) };
    const from = this.#offsets.before(file, stats, fromSeq);
    let handed = false;
    try {
      for await (const records of readJournal(handle, stats.size, file, runId, fromSeq, reports, { ...options, from })) {
        handed = true;
        yield records;
      }
    } catch (error) {
      // Damage where a learnt place says an append ended, before anything was handed over: the file was
      // written anew (or cut back) since. It is read again from its first line, once.
      if (from === undefined || handed || !(error instanceof RunJournalCorruptError)) throw error;
      this.#offsets.forget(file);
      yield* readJournal(handle, stats.size, file, runId, fromSeq, reports, options);
    }
    if (torn !== undefined && !(await leased())) reports.torn(torn);
  }
}
