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
 * The committed records of the first `size` bytes of a journal from `fromSeq`, streamed a chunk's
 * worth at a time.
 *
 * @remarks
 * Lines after the last committed line (an append a crash cut short: a line without its newline, a line
 * that is not a record, records whose commit line is missing) are dropped and passed to `onTorn`. A bad
 * line with a committed line after it is damage, not a crash: `RunJournalCorruptError`. A version line
 * of another version is `RunJournalVersionError`; one naming another run is `RunJournalCorruptError`.
 */
export async function* readJournal(handle: FileHandle, size: number, file: string, runId: string, fromSeq: number, onTorn: (torn: TornEnd) => void): AsyncGenerator<readonly RunRecord[]> {
  let lineNumber = 0;
  let headerRead = false;
  let committed = 0;
  let committedEnd = 0;
  let batch: RunRecord[] = [];
  let problem: { line: number; reason: string } | undefined;
  for await (const lines of journalLines(handle, size)) {
    const records: RunRecord[] = [];
    for (const line of lines) {
      lineNumber += 1;
      if (!line.complete) continue;
      if (!headerRead) {
        const header = parseHeader(line.text, file);
        if (header.runId !== runId) throw new RunJournalCorruptError(file, 1, `the version line names run ${JSON.stringify(header.runId)}`);
        headerRead = true;
        committedEnd = line.end;
        continue;
      }
      if (problem !== undefined) {
        const later = parseRecordLine(line.text);
        if (later.ok && later.commit !== undefined) throw new RunJournalCorruptError(file, problem.line, problem.reason);
        continue;
      }
      const parsed = parseRecordLine(line.text, committed + batch.length);
      if (!parsed.ok) {
        problem = { line: lineNumber, reason: parsed.reason };
        continue;
      }
      batch.push({ seq: parsed.seq, event: parsed.event });
      if (parsed.commit !== undefined) {
        for (const record of batch) if (record.seq >= fromSeq) records.push(record);
        committed += batch.length;
        committedEnd = line.end;
        batch = [];
      }
    }
    if (records.length > 0) yield records;
  }
  // Each record is one line, so the torn end starts after the version line and every committed record.
  if (committedEnd < size) onTorn({ line: headerRead ? committed + 2 : 1, bytes: size - committedEnd });
}
