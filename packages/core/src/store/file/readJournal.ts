import type { FileHandle } from 'node:fs/promises';
import { RunJournalCorruptError } from '../../errors/RunJournalCorruptError';
import type { RunRecord } from '../RunStore';
import { parseHeader } from './journalFormat';
import { journalLines, readFirstLine } from './journalLines';
import { JournalScan, type ScanReports } from './JournalScan';

export type { StaleAppend, TornEnd } from './JournalScan';

/**
 * The records of the first `size` bytes of a journal from `fromSeq`, streamed a chunk's worth at a
 * time: those of complete appends of the current epoch (see {@link JournalScan}); torn and stale
 * bytes are dropped and reported. A version line of another version is `RunJournalVersionError`;
 * one naming another run, or damage, is `RunJournalCorruptError`.
 */
export async function* readJournal(handle: FileHandle, size: number, file: string, runId: string, fromSeq: number, reports: ScanReports): AsyncGenerator<readonly RunRecord[]> {
  const first = await readFirstLine(handle, size);
  // A journal whose version line never got its newline holds nothing yet: a first write cut short.
  if (first === undefined) {
    if (size > 0) reports.torn({ line: 1, bytes: size });
    return;
  }
  const header = parseHeader(first.text, file);
  if (header.runId !== runId) throw new RunJournalCorruptError(file, 1, `the version line names run ${JSON.stringify(header.runId)}`);
  const scan = new JournalScan(file, first.end, reports, true, fromSeq);
  let unfinished = 0;
  for await (const chunk of journalLines(handle, first.end, size)) {
    unfinished = chunk.unfinished;
    scan.chunk(chunk);
    if (scan.out.length > 0) {
      const records = scan.out;
      scan.out = [];
      yield records;
    }
  }
  scan.finish(size, unfinished);
}
