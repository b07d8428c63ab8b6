import { CoordinationError } from './CoordinationError';

/**
 * A run journal file does not open with the version line this store writes: it is missing, or it names
 * another journal format version.
 *
 * @remarks
 * The file store writes `{"rxagentsJournal":2,...}` as the first line of every journal and reads no
 * journal whose first line says otherwise, so a journal written by another (older or newer) format is
 * refused with this error rather than misread. `found` is the version the line names, or `undefined`
 * when the line has no version at all (the file is not a journal of this store). Not retryable: move
 * the file away, or read it with the release that wrote it.
 *
 * @example
 * ```ts
 * import { RunJournalVersionError } from '@rxagents/core';
 *
 * const error = new RunJournalVersionError('/var/runs/r-r1.jsonl', 2, 1);
 * console.log(error.code, error.found); // RUN_JOURNAL_VERSION 2
 * ```
 */
export class RunJournalVersionError extends CoordinationError {
  /** The journal file. */
  readonly file: string;
  /** The version its first line names, or `undefined` when it names none. */
  readonly found: unknown;
  /** The version this store reads and writes. */
  readonly expected: number;

  constructor(file: string, found: unknown, expected: number) {
    const what = found === undefined ? 'no journal version line' : `journal version ${JSON.stringify(found)}`;
    super('RUN_JOURNAL_VERSION', `Run journal ${file} has ${what}; this store reads version ${expected}`, {
      context: { file, found, expected },
    });
    this.file = file;
    this.found = found;
    this.expected = expected;
  }
}
