import { CoordinationError } from './CoordinationError';

/**
 * A run journal file holds a line that is not a valid record, followed by records that are: the file
 * was damaged, not torn by a crash.
 *
 * @remarks
 * A crash can only cut a journal at its end, and the file store drops such a torn end (and reports it).
 * A bad line with complete records after it cannot come from a crash, so reading stops with this error,
 * which names the file, the 1-based line and what is wrong with it. Not retryable: the same file fails
 * again; restore it from a copy, or cut it before that line to keep the records in front of it.
 *
 * @example
 * ```ts
 * import { RunJournalCorruptError } from '@rxagents/core';
 *
 * const error = new RunJournalCorruptError('/var/runs/r-r1.jsonl', 7, 'is not JSON');
 * console.log(error.message); // Run journal /var/runs/r-r1.jsonl is damaged at line 7: is not JSON
 * ```
 */
export class RunJournalCorruptError extends CoordinationError {
  /** The journal file. */
  readonly file: string;
  /** The 1-based line that is not a valid record. */
  readonly line: number;
  /** What is wrong with it. */
  readonly reason: string;

  constructor(file: string, line: number, reason: string) {
    super('RUN_JOURNAL_CORRUPT', `Run journal ${file} is damaged at line ${line}: ${reason}`, {
      context: { file, line, reason },
    });
    this.file = file;
    this.line = line;
    this.reason = reason;
  }
}
