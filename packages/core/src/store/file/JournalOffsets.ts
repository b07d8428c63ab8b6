import type { JournalPosition } from './JournalPosition';

/** How many journals' positions are kept; the least recently read is dropped first. */
const KEPT_JOURNALS = 128;

/** The most positions kept spread over one journal: past it, every other one is dropped and the spacing doubles. */
const SPREAD_POSITIONS = 1_024;

/** The positions last passed, kept whatever the spacing: where a reader that stopped (a page, a follower at the end) starts again. */
const RECENT_POSITIONS = 16;

/** What identifies a file across renames and rewrites: a new file at the same path differs in one of them. */
export interface FileIdentity {
  readonly dev: number;
  readonly ino: number;
  readonly birthtimeMs: number;
  readonly size: number;
}

/** The positions known in one journal file. */
class Positions {
  /** Positions at least `spacing` records apart, in increasing order. */
  readonly spread: JournalPosition[] = [];
  spacing = 1;
  /** The last {@link RECENT_POSITIONS} positions passed, a ring. */
  readonly recent: (JournalPosition | undefined)[] = new Array(RECENT_POSITIONS);
  next = 0;
  /** The furthest offset known to be a position: a file shorter than that was rewritten. */
  furthest = 0;

  constructor(
    readonly dev: number,
    readonly ino: number,
    readonly birthtimeMs: number,
  ) {}

  add(position: JournalPosition): void {
    this.recent[this.next] = position;
    this.next = (this.next + 1) % RECENT_POSITIONS;
    if (position.offset > this.furthest) this.furthest = position.offset;
    const last = this.spread.at(-1);
    // A later place before the same record (after a fence, or a stale append) is the better start.
    if (last !== undefined && position.seq === last.seq && position.offset > last.offset) this.spread[this.spread.length - 1] = position;
    if (last !== undefined && position.seq < last.seq + this.spacing) return;
    this.spread.push(position);
    if (this.spread.length > SPREAD_POSITIONS) {
      let kept = 0;
      for (let i = 0; i < this.spread.length; i += 2) this.spread[kept++] = this.spread[i] as JournalPosition;
      this.spread.length = kept;
      this.spacing *= 2;
    }
  }

  /** The known position with the greatest seq not after `seq`. */
  before(seq: number): JournalPosition | undefined {
    let low = 0;
    let high = this.spread.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((this.spread[middle] as JournalPosition).seq <= seq) low = middle + 1;
      else high = middle;
    }
    let best = low === 0 ? undefined : this.spread[low - 1];
    // Of the places before `seq`, the furthest into the file: offsets grow with seqs.
    for (const position of this.recent) if (position !== undefined && position.seq <= seq && (best === undefined || position.offset > best.offset)) best = position;
    return best;
  }
}

/**
 * Where reads of a store's journals can start: for each journal, places just after a commit line (where
 * an append ends) and the seq of the record that follows, learnt as reads pass them. A read from `fromSeq`
 * starts at the nearest known place before it instead of the first line, and a reader that stopped (a
 * page read, a viewer at the end of a live run) goes on where it stopped.
 *
 * @remarks
 * Bounded: at most {@link SPREAD_POSITIONS} spread over a journal (thinned as it grows, so a read starts
 * at most a spacing of records before `fromSeq`) and {@link RECENT_POSITIONS} recent ones, for at most
 * {@link KEPT_JOURNALS} journals. A file that is no longer the one the positions were learnt in (another
 * inode or birth time, or shorter than a known position: deleted and written again) has them dropped,
 * and they are learnt again by the next reads.
 */
export class JournalOffsets {
  readonly #journals = new Map<string, Positions>();

  /** The known position nearest before `seq` in `file`, `undefined` when none is (read from the first line). */
  before(file: string, identity: FileIdentity, seq: number): JournalPosition | undefined {
    const positions = this.#journals.get(file);
    if (positions === undefined) return undefined;
    if (!same(positions, identity)) {
      this.#journals.delete(file);
      return undefined;
    }
    this.#journals.delete(file);
    this.#journals.set(file, positions);
    return positions.before(seq);
  }

  /** Learns that a read of `file` passed `position`. */
  add(file: string, identity: FileIdentity, position: JournalPosition): void {
    let positions = this.#journals.get(file);
    if (positions === undefined || !same(positions, identity)) {
      positions = new Positions(identity.dev, identity.ino, identity.birthtimeMs);
      this.#journals.delete(file);
      this.#journals.set(file, positions);
      if (this.#journals.size > KEPT_JOURNALS) this.#journals.delete(this.#journals.keys().next().value as string);
    }
    positions.add(position);
  }

  /** Drops what is known of `file` (it was deleted, or a read found a position that no longer holds). */
  forget(file: string): void {
    this.#journals.delete(file);
  }
}

function same(positions: Positions, identity: FileIdentity): boolean {
  return positions.dev === identity.dev && positions.ino === identity.ino && positions.birthtimeMs === identity.birthtimeMs && identity.size >= positions.furthest;
}
