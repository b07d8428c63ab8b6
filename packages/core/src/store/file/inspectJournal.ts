import type { FileHandle } from 'node:fs/promises';
import type { RunStatus } from '../RunStore';
import { type JournalHeader, type JournalLine, parseHeader, parseJournalLine } from './journalFormat';
import { journalLines, readFirstLine, walkLinesBackwards } from './journalLines';
import { JournalScan } from './JournalScan';

/** What a journal holds, as an append or a summary needs it. */
export interface JournalState {
  readonly header: JournalHeader;
  /** How many records the current story holds: the next append's first seq. */
  readonly records: number;
  readonly status: RunStatus;
  /** When the last counted append was made (`undefined`: none yet). */
  readonly updatedAt: number | undefined;
  /** The highest epoch the journal holds (at least; exact when `exact`). */
  readonly epoch: number;
  /** Whether `epoch` is known to be the highest, not only a bound from below. */
  readonly exact: boolean;
  /** The offset past the last complete append or fence: what follows it is a torn end. */
  readonly end: number;
}

/** No scan reports: finding a state drops nothing; reads report what they drop. */
const QUIET = { torn: () => undefined, stale: () => undefined };

/**
 * A journal's state, read from its version line and its end when that is enough, or else from the
 * whole journal. `undefined` when it has no version line yet. Throws `RunJournalVersionError` for a
 * journal of another version and `RunJournalCorruptError` for damage the reading met.
 *
 * @remarks
 * `hint` is an epoch no line of the journal exceeds (the run's lease's, read after the journal's size
 * was taken: a lease is written before its fence). With it, the walk back from the end stops at the
 * first append of that epoch (or of epoch 0), skipping older ones after its fence: the usual journal is
 * read from its last append only. When the end does not settle it (no hint, a damaged or unfinished
 * line, epochs the hint does not account for), the journal is read forward from its start.
 */
export async function inspectJournal(handle: FileHandle, size: number, file: string, hint: number | undefined): Promise<JournalState | undefined> {
  const first = await readFirstLine(handle, size);
  if (first === undefined) return undefined;
  const header = parseHeader(first.text, file);
  return (await fromEnd(handle, first.end, size, header, hint)) ?? (await fromStart(handle, first.end, size, file, header));
}

/** The state read back from the journal's end, or `undefined` when the end does not settle it. */
async function fromEnd(handle: FileHandle, from: number, size: number, header: JournalHeader, hint: number | undefined): Promise<JournalState | undefined> {
  let end: number | undefined;
  let bound = hint;
  let stalePending = false;
  let highest = 0;
  let settled: JournalState | undefined;
  let unsettled = false;
  const counted = (line: Extract<JournalLine, { kind: 'record' }>, commit: NonNullable<typeof line.commit>): JournalState => ({
    header,
    records: line.seq + 1,
    status: commit.status,
    updatedAt: commit.appendedAt,
    epoch: Math.max(highest, hint ?? 0, line.epoch),
    exact: hint !== undefined,
    end: end ?? size,
  });
  await walkLinesBackwards(handle, from, size, (text, lineEnd) => {
    const line = parseJournalLine(text);
    if (line.kind === 'blank' || (line.kind === 'record' && line.commit === undefined)) return false;
    if (line.kind === 'bad') {
      unsettled = true;
      return true;
    }
    end ??= lineEnd;
    highest = Math.max(highest, line.epoch);
    if (line.kind === 'fence') {
      // A fence of the hint's epoch: its holder has counted nothing since; what follows it was stale.
      if (bound !== undefined && line.epoch === bound) {
        bound -= 1;
        stalePending = false;
        return false;
      }
      unsettled = true;
      return true;
    }
    const commit = line.commit as NonNullable<typeof line.commit>;
    if (line.epoch === 0 || line.epoch === bound) {
      settled = counted(line, commit);
      return true;
    }
    if (bound !== undefined && line.epoch < bound) {
      stalePending = true;
      return false;
    }
    unsettled = true;
    return true;
  });
  if (settled !== undefined) return settled;
  if (unsettled || stalePending) return undefined;
  // Nothing counted yet: a journal of fences (and stale appends they settled) only.
  return { header, records: 0, status: 'running', updatedAt: undefined, epoch: Math.max(highest, hint ?? 0), exact: hint !== undefined, end: end ?? from };
}

/** The state read forward from the journal's start, every append checked. */
async function fromStart(handle: FileHandle, from: number, size: number, file: string, header: JournalHeader): Promise<JournalState> {
  const scan = new JournalScan(file, from, QUIET, false);
  let unfinished = 0;
  for await (const chunk of journalLines(handle, from, size)) {
    unfinished = chunk.unfinished;
    scan.chunk(chunk);
  }
  scan.finish(size, unfinished);
  return { header, records: scan.records, status: scan.last?.status ?? 'running', updatedAt: scan.last?.appendedAt, epoch: scan.epoch, exact: true, end: scan.end };
}

/** The state of a journal read forward from its start (never only from its end): its epoch is exact. */
export async function scanJournal(handle: FileHandle, size: number, file: string): Promise<JournalState | undefined> {
  const first = await readFirstLine(handle, size);
  if (first === undefined) return undefined;
  return fromStart(handle, first.end, size, file, parseHeader(first.text, file));
}

/** The root's name and when the first counted append was made, read forward from the start until it. */
export async function readOpening(handle: FileHandle, size: number, file: string): Promise<{ readonly name: string; readonly createdAt: number } | undefined> {
  const first = await readFirstLine(handle, size);
  if (first === undefined) return undefined;
  parseHeader(first.text, file);
  const scan = new JournalScan(file, first.end, QUIET, false);
  for await (const chunk of journalLines(handle, first.end, size, 4 * 1024)) {
    scan.chunk(chunk);
    if (scan.opening !== undefined) return scan.opening;
  }
  return undefined;
}
