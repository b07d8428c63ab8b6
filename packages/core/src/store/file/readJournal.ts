import type { FileHandle } from 'node:fs/promises';
import { RunJournalCorruptError } from '../../errors/RunJournalCorruptError';
import type { RunRecord } from '../RunStore';
import { parseHeader } from './journalFormat';
import { journalLines, type LineChunk, readFirstLine } from './journalLines';
import type { JournalPosition } from './JournalPosition';
import { JournalScan, type ScanReports, type TornEnd } from './JournalScan';

export type { JournalPosition } from './JournalPosition';
export type { StaleAppend, TornEnd } from './JournalScan';

/** What reads did, added to as they go: the lines they parsed and their bytes. */
export interface ReadCounts {
  lines: number;
  bytes: number;
}

/** How {@link readJournal} reads, beyond the file and the run. */
export interface ReadJournalOptions {
  /** Where to start (the version line was checked when the position was learnt); the first line when absent. */
  readonly from?: JournalPosition | undefined;
  /** Told each place passed where a later read could start. */
  readonly onPosition?: ((position: JournalPosition) => void) | undefined;
  /** Where the read adds what it parsed. */
  readonly counts?: ReadCounts | undefined;
  /** Given what follows the last complete append, instead of `reports.torn` (which still gets torn bytes between appends). */
  readonly tornEnd?: ((torn: TornEnd) => void) | undefined;
}

/** How many lines are parsed before what they completed is handed over: a reader that stops early leaves the rest of a chunk unparsed. */
const SLICE_LINES = 16;

/**
 * The records of the first `size` bytes of a journal from `fromSeq`, streamed a chunk's worth at a
 * time, from its first line or from a {@link JournalPosition}: those of complete appends of the current
 * epoch (see {@link JournalScan}); torn and stale bytes are dropped and reported. A version line of
 * another version is `RunJournalVersionError`; one naming another run, or damage, is
 * `RunJournalCorruptError`.
 */
export async function* readJournal(handle: FileHandle, size: number, file: string, runId: string, fromSeq: number, reports: ScanReports, options: ReadJournalOptions = {}): AsyncGenerator<readonly RunRecord[]> {
  const { from, onPosition, counts, tornEnd } = options;
  let atEnd = false;
  const scanReports: ScanReports = { stale: reports.stale, torn: (torn) => (atEnd && tornEnd !== undefined ? tornEnd(torn) : reports.torn(torn)) };
  let scan: JournalScan;
  if (from === undefined) {
    const first = await readFirstLine(handle, size);
    // A journal whose version line never got its newline holds nothing yet: a first write cut short.
    if (first === undefined) {
      if (size > 0) (tornEnd ?? reports.torn)({ line: 1, bytes: size });
      return;
    }
    const header = parseHeader(first.text, file);
    if (header.runId !== runId) throw new RunJournalCorruptError(file, 1, `the version line names run ${JSON.stringify(header.runId)}`);
    if (counts !== undefined) {
      counts.lines += 1;
      counts.bytes += first.end;
    }
    scan = new JournalScan(file, first.end, scanReports, true, fromSeq);
    onPosition?.({ offset: first.end, seq: 0, line: 2, epoch: 0 });
  } else {
    scan = JournalScan.at(file, from, scanReports, fromSeq);
  }
  scan.onPosition = onPosition;
  let unfinished = 0;
  for await (const chunk of journalLines(handle, scan.end, size)) {
    unfinished = chunk.unfinished;
    for (let index = 0; index < chunk.lines.length; index += SLICE_LINES) {
      const slice = sliceOf(chunk, index, index + SLICE_LINES);
      scan.chunk(slice);
      if (counts !== undefined) {
        counts.lines += slice.lines.length;
        counts.bytes += slice.bytes.length;
      }
      if (scan.out.length > 0) {
        const records = scan.out;
        scan.out = [];
        yield records;
      }
    }
  }
  atEnd = true;
  scan.finish(size, unfinished);
}

/** Lines `from` to `to` of a chunk (and their bytes), as a chunk of their own. */
function sliceOf(chunk: LineChunk, from: number, to: number): LineChunk {
  if (from === 0 && to >= chunk.lines.length) return chunk;
  const lines = chunk.lines.slice(from, to);
  const start = from === 0 ? chunk.start : (chunk.lines[from - 1] as (typeof lines)[number]).end;
  const end = (lines[lines.length - 1] as (typeof lines)[number]).end;
  return { bytes: chunk.bytes.subarray(start - chunk.start, end - chunk.start), start, lines, unfinished: 0 };
}
