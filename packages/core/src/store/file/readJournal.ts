import type { FileHandle } from 'node:fs/promises';
import { RunJournalCorruptError } from '../../errors/RunJournalCorruptError';
import type { RunRecord } from '../RunStore';
import { parseHeader, parseRecordLine } from './journalFormat';
import { journalLines } from './journalLines';

/** Where a journal's torn end starts (its 1-based line) and how many bytes it holds. */
export interface TornEnd {
  readonly line: number;
  readonly bytes: number;
}

/**
 * A place in a journal where a read can start: just after its version line or after a commit line (where
 * an append ends), with what a reader must know there to go on as if it had read from the first line.
 */
export interface JournalPosition {
  /** The byte offset of the place: the start of a line. */
  readonly offset: number;
  /** The seq of the next record. */
  readonly seq: number;
  /** The 1-based number of the line that starts at `offset` (for error messages). */
  readonly line: number;
}

/** What a read did, added to as it goes: the lines it parsed and their bytes. */
export interface ReadCounts {
  lines: number;
  bytes: number;
}

/** How {@link readJournal} reads, beyond the file and the run. */
export interface ReadJournalOptions {
  /** Where to start (after the version line, which was checked when the position was found); the first line when absent. */
  readonly from?: JournalPosition | undefined;
  /** Told each place passed where a later read could start. */
  readonly onPosition?: ((position: JournalPosition) => void) | undefined;
  /** Where the read adds what it parsed. */
  readonly counts?: ReadCounts | undefined;
}

/**
 * Thrown when a read from a {@link JournalPosition} finds no record where the position says one starts:
 * the file is no longer the one the position was taken in. Its reader starts again from the first line.
 */
export class StalePositionError extends Error {
  constructor(readonly position: JournalPosition) {
    super(`no record ${position.seq} starts at byte ${position.offset}`);
  }
}

/** How many records a read parses before handing them over: a reader that stops early leaves the rest unparsed. */
const BATCH_RECORDS = 64;

/**
 * The committed records of the first `size` bytes of a journal from `fromSeq`, streamed a chunk's
 * worth at a time, from its first line or from a {@link JournalPosition}.
 *
 * @remarks
 * Lines after the last committed line (an append a crash cut short: a line without its newline, a line
 * that is not a record, records whose commit line is missing) are dropped and passed to `onTorn`. A bad
 * line with a committed line after it is damage, not a crash: `RunJournalCorruptError`. A version line
 * of another version is `RunJournalVersionError`; one naming another run is `RunJournalCorruptError`.
 * Records are handed over an append at a time once {@link BATCH_RECORDS} are ready, so a reader that
 * stops early costs what it read, not the rest of the chunk.
 */
export async function* readJournal(
  handle: FileHandle,
  size: number,
  file: string,
  runId: string,
  fromSeq: number,
  onTorn: (torn: TornEnd) => void,
  options: ReadJournalOptions = {},
): AsyncGenerator<readonly RunRecord[]> {
  const { from, onPosition, counts } = options;
  let lineNumber = from === undefined ? 0 : from.line - 1;
  let headerRead = from !== undefined;
  let committed = from?.seq ?? 0;
  let committedEnd = from?.offset ?? 0;
  let committedLine = from?.line ?? 1;
  /** Whether the first line after `from` still has to show that a record starts there. */
  let checkStart = from !== undefined;
  let lineStart = committedEnd;
  let batch: RunRecord[] = [];
  let records: RunRecord[] = [];
  let problem: { line: number; reason: string } | undefined;
  if (from !== undefined && from.offset > size) throw new StalePositionError(from);
  for await (const lines of journalLines(handle, size, committedEnd)) {
    for (const line of lines) {
      lineNumber += 1;
      if (!line.complete) continue;
      if (counts !== undefined) {
        counts.lines += 1;
        counts.bytes += line.end - lineStart;
      }
      lineStart = line.end;
      if (!headerRead) {
        const header = parseHeader(line.text, file);
        if (header.runId !== runId) throw new RunJournalCorruptError(file, 1, `the version line names run ${JSON.stringify(header.runId)}`);
        headerRead = true;
        committedEnd = line.end;
        committedLine = 2;
        onPosition?.({ offset: line.end, seq: 0, line: 2 });
        continue;
      }
      if (problem !== undefined) {
        const later = parseRecordLine(line.text);
        if (later.ok && later.commit !== undefined) throw new RunJournalCorruptError(file, problem.line, problem.reason);
        continue;
      }
      const parsed = parseRecordLine(line.text, committed + batch.length);
      if (checkStart) {
        if (!parsed.ok && from !== undefined) throw new StalePositionError(from);
        checkStart = false;
      }
      if (!parsed.ok) {
        problem = { line: lineNumber, reason: parsed.reason };
        continue;
      }
      batch.push({ seq: parsed.seq, event: parsed.event });
      if (parsed.commit !== undefined) {
        for (const record of batch) if (record.seq >= fromSeq) records.push(record);
        committed += batch.length;
        committedEnd = line.end;
        committedLine = lineNumber + 1;
        batch = [];
        onPosition?.({ offset: line.end, seq: committed, line: committedLine });
        if (records.length >= BATCH_RECORDS) {
          yield records;
          records = [];
        }
      }
    }
  }
  if (records.length > 0) yield records;
  if (committedEnd < size) onTorn({ line: headerRead ? committedLine : 1, bytes: size - committedEnd });
}
