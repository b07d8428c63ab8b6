import { crc32 } from 'node:zlib';
import { RunJournalCorruptError } from '../../errors/RunJournalCorruptError';
import type { RunEvent } from '../../events/RunEvent';
import { safeParseRunEvent } from '../../events/safeParseRunEvent';
import type { RunRecord } from '../RunStore';
import { APPEND_SEED, type Commit, CRC_SUFFIX_BYTES, parseJournalLine } from './journalFormat';
import type { LineChunk } from './journalLines';
import type { JournalPosition } from './JournalPosition';

/** Where dropped bytes start (their 1-based line) and how many there are. */
export interface TornEnd {
  readonly line: number;
  readonly bytes: number;
}

/** A whole append of an epoch older than one the journal already holds, skipped. */
export interface StaleAppend {
  /** Its first line (1-based). */
  readonly line: number;
  readonly records: number;
  readonly epoch: number;
  /** The highest epoch the journal held before it. */
  readonly currentEpoch: number;
}

/** What a scan reports as it goes. */
export interface ScanReports {
  readonly torn: (torn: TornEnd) => void;
  readonly stale: (stale: StaleAppend) => void;
}

/** An append being read: its lines so far. */
interface OpenAppend {
  readonly line: number;
  readonly start: number;
  readonly epoch: number;
  readonly stale: boolean;
  count: number;
  crc: number;
  crcFrom: number;
  problem: { readonly line: number; readonly reason: string } | undefined;
  readonly records: RunRecord[];
}

/**
 * Reads a journal forward, after its version line, a chunk of lines at a time, and keeps its state:
 * the records of complete appends of the current epoch, in order.
 *
 * @remarks
 * - An append counts once its commit line came and its CRC-32 holds. A failing checksum, a whole line
 *   that is not a journal line, or a bad record in an append that did commit, is damage:
 *   `RunJournalCorruptError` naming the line.
 * - Bytes a write left unfinished are torn: lines whose commit never came (ended by the next append's
 *   blank line), an unfinished line (ended by the next append's leading newline, so no blank line
 *   follows it), or whatever follows the last complete append. They are dropped and reported.
 * - The epoch is the highest of the fences and committed records so far; an append of an older epoch
 *   (not 0: an append without a lease claims none) is stale: skipped and reported, never counted.
 */
export class JournalScan {
  /** The highest epoch so far. */
  epoch = 0;
  /** How many records the current story holds: the next seq. */
  records = 0;
  /** The last counted append's commit. */
  last: Commit | undefined;
  /** The root's name and when the first counted append was made. */
  opening: { readonly name: string; readonly createdAt: number } | undefined;
  /** The offset past the last complete append or fence: what follows is torn unless another append completes. */
  end: number;
  /** Records of `fromSeq` or later counted since the caller last took them (when `collect`). */
  out: RunRecord[] = [];
  /** Told each place passed where a later scan could start (after a complete append or fence). */
  onPosition: ((position: JournalPosition) => void) | undefined;

  #line: number;
  #endLine: number;
  #open: OpenAppend | undefined;
  #junk: { readonly line: number; readonly reason: string } | undefined;
  /** A line that was not JSON and was followed by another: an unfinished write, unless the next append fails its checksum. */
  #fragment: { readonly line: number; readonly reason: string } | undefined;

  constructor(
    private readonly file: string,
    /** The offset after the version line, and its line number (1). */
    headerEnd: number,
    private readonly reports: ScanReports,
    /** Whether to check events and keep records (a read), or only count (finding the state). */
    private readonly collect: boolean,
    private readonly fromSeq = 0,
  ) {
    this.end = headerEnd;
    this.#line = 1;
    this.#endLine = 2;
  }

  /**
   * A scan that starts at `position` (learnt by an earlier scan of the same file) in the state a scan
   * from the first line would have there. What it does not know there: `last` and `opening`.
   */
  static at(file: string, position: JournalPosition, reports: ScanReports, fromSeq: number): JournalScan {
    const scan = new JournalScan(file, position.offset, reports, true, fromSeq);
    scan.epoch = position.epoch;
    scan.records = position.seq;
    scan.#line = position.line - 1;
    scan.#endLine = position.line;
    return scan;
  }

  /** Takes one chunk of lines. */
  chunk(chunk: LineChunk): void {
    const lines = chunk.lines;
    let start = chunk.start;
    for (let index = 0; index < lines.length; index++) {
      const line = lines[index] as (typeof lines)[number];
      this.#take(line.text, start, line.end, chunk);
      start = line.end;
    }
    const open = this.#open;
    if (open !== undefined && chunk.bytes.length > 0) {
      open.crc = crc32(chunk.bytes.subarray(open.crcFrom - chunk.start), open.crc);
      open.crcFrom = chunk.start + chunk.bytes.length;
    }
  }

  /** Ends the scan at `size` bytes, of which `unfinished` follow the last newline. */
  finish(size: number, unfinished: number): void {
    const junk = this.#junk;
    if (junk !== undefined && unfinished === 0) throw new RunJournalCorruptError(this.file, junk.line, junk.reason);
    if (this.end < size) this.reports.torn({ line: this.#endLine, bytes: size - this.end });
  }

  #take(text: string, start: number, end: number, chunk: LineChunk): void {
    const number = ++this.#line;
    const parsed = parseJournalLine(text);
    const junk = this.#junk;
    if (junk !== undefined) {
      this.#junk = undefined;
      // A write cut short leaves a line without its newline; the next append's leading newline ends
      // it, so no blank line follows. A bad line followed by a blank one was whole: it is damage.
      if (parsed.kind === 'blank') throw new RunJournalCorruptError(this.file, junk.line, junk.reason);
      this.#fragment = junk;
    }
    switch (parsed.kind) {
      case 'blank':
        this.#open = undefined;
        return;
      case 'bad':
        if (parsed.json || endsWholeLine(text)) throw new RunJournalCorruptError(this.file, number, parsed.reason);
        this.#open = undefined;
        this.#junk = { line: number, reason: parsed.reason };
        return;
      case 'fence': {
        this.#open = undefined;
        const crc = crc32(chunk.bytes.subarray(start - chunk.start, end - 1 - CRC_SUFFIX_BYTES - chunk.start), APPEND_SEED);
        if (crc !== parsed.crc) this.#damaged(number, 'fails its checksum (the fence was changed after it was written)');
        this.#completed(start, end, number);
        if (parsed.epoch > this.epoch) this.epoch = parsed.epoch;
        this.#passed();
        return;
      }
      case 'record':
        break;
    }
    let open = this.#open;
    if (open === undefined) {
      const stale = parsed.epoch !== 0 && parsed.epoch < this.epoch;
      open = { line: number, start, epoch: parsed.epoch, stale, count: 0, crc: APPEND_SEED, crcFrom: start, problem: undefined, records: [] };
      this.#open = open;
    }
    open.count += 1;
    if (!open.stale && open.problem === undefined) {
      const expected = this.records + open.count - 1;
      if (parsed.seq !== expected || parsed.epoch !== open.epoch) {
        open.problem = { line: number, reason: parsed.seq !== expected ? `has seq ${parsed.seq} where ${expected} was expected` : `has epoch ${parsed.epoch} in an append of epoch ${open.epoch}` };
      } else if (this.collect) {
        const checked = safeParseRunEvent(parsed.event);
        if (!checked.success) {
          const issue = checked.error.issues[0];
          open.problem = { line: number, reason: `holds an invalid event: ${['event', ...(issue?.path ?? [])].map(String).join('.')} ${issue?.message ?? ''}`.trim() };
        } else if (parsed.seq >= this.fromSeq) open.records.push({ seq: parsed.seq, event: checked.data });
      } else if (open.count === 1 && this.records === 0) {
        open.records.push({ seq: parsed.seq, event: parsed.event as RunEvent });
      }
    }
    const commit = parsed.commit;
    if (commit === undefined) return;
    const crc = crc32(chunk.bytes.subarray(open.crcFrom - chunk.start, end - 1 - CRC_SUFFIX_BYTES - chunk.start), open.crc);
    this.#open = undefined;
    if (open.problem !== undefined) throw new RunJournalCorruptError(this.file, open.problem.line, open.problem.reason);
    if (crc !== parsed.crc) this.#damaged(number, `fails its checksum (the append of lines ${open.line}-${number} was changed after it was written)`);
    this.#completed(open.start, end, number);
    if (open.stale) {
      this.reports.stale({ line: open.line, records: open.count, epoch: open.epoch, currentEpoch: this.epoch });
      this.#passed();
      return;
    }
    if (open.epoch > this.epoch) this.epoch = open.epoch;
    this.records += open.count;
    this.last = commit;
    if (this.opening === undefined) {
      const first = open.records[0]?.event as { name?: unknown } | undefined;
      this.opening = { name: typeof first?.name === 'string' ? first.name : '', createdAt: commit.appendedAt };
    }
    if (this.collect) for (const record of open.records) this.out.push(record);
    this.#passed();
  }

  /** Tells `onPosition` of the place just passed: the end of a complete append or fence. */
  #passed(): void {
    this.onPosition?.({ offset: this.end, seq: this.records, line: this.#endLine, epoch: this.epoch });
  }

  /** A checksum failed: the damage is the unfinished-looking line before it if there was one, else this line. */
  #damaged(line: number, reason: string): never {
    const fragment = this.#fragment;
    if (fragment !== undefined) throw new RunJournalCorruptError(this.file, fragment.line, fragment.reason);
    throw new RunJournalCorruptError(this.file, line, reason);
  }

  /** An append (or fence) from `start` to `end` completed: what came between the last one and it was torn. */
  #completed(start: number, end: number, line: number): void {
    // The append's first byte is the newline before `start`.
    if (start - 1 > this.end) this.reports.torn({ line: this.#endLine, bytes: start - 1 - this.end });
    this.#fragment = undefined;
    this.end = end;
    this.#endLine = line + 1;
  }
}

/** Whether a line that is not JSON is a whole line whose newline was damaged: a write cut short never leaves `}` and one more byte. */
function endsWholeLine(text: string): boolean {
  if (text.length < 2 || text.charCodeAt(text.length - 2) !== 0x7d) return false;
  try {
    JSON.parse(text.slice(0, -1));
    return true;
  } catch {
    return false;
  }
}
