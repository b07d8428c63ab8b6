import type { Subscription } from 'rxjs';
import { ReplayGapError } from '../errors/ReplayGapError';
import type { FrameSource } from './eventStreamBody';

/** How a run in a registry ended, once it did. */
type Ending = { readonly kind: 'complete' } | { readonly kind: 'error'; readonly error: unknown };

/** The most a viewer reads at once: frames are stored in blocks of at most this many bytes, and a read never spans two. */
export const MAX_READ_BYTES = 64 * 1024;

/** The first block of a run: small, so that a short run costs little; each next one doubles, up to {@link MAX_READ_BYTES}. */
const FIRST_BLOCK_BYTES = 1024;

/**
 * The encoded frames of one run, the latest `replayLimit` of them kept, read by any number of viewers,
 * each with its own cursor.
 *
 * @remarks
 * Each frame is encoded once, when it is appended, into a shared block of bytes (a frame longer than a
 * block gets one of its own). A read hands a viewer a view of one block from its cursor on, so a viewer
 * costs a cursor, never a copy, and reads at most {@link MAX_READ_BYTES} at once (or one longer frame).
 */
export class RunLog {
  /** The block of each kept frame (from `head` on), and where in it the frame starts and ends. */
  private blocks: (Uint8Array | undefined)[] = [];
  private starts: number[] = [];
  private ends: number[] = [];
  /** Index in the arrays above of the oldest kept frame. */
  private head = 0;
  /** The id of the oldest kept frame. */
  private firstKept = 0;
  /** The block being filled, and how much of it is. */
  private block: Uint8Array;
  private filled = 0;
  private readonly encoder = new TextEncoder();
  /** The id the next frame gets. */
  next = 0;
  ending: Ending | undefined;

  /** The id of the oldest frame still kept. */
  get oldest(): number {
    return this.firstKept;
  }

  subscription: Subscription | undefined;
  expiry: Subscription | undefined;
  private readonly waiting = new Set<() => void>();
  /** Every viewer still reading, so that they can be ended when the run is let go of. */
  private readonly viewers = new Set<RunLogViewer>();

  /** `firstBlockBytes`: the size of the first block (each next one doubles, up to {@link MAX_READ_BYTES}). */
  constructor(
    private readonly replayLimit: number,
    firstBlockBytes = FIRST_BLOCK_BYTES,
  ) {
    this.block = new Uint8Array(firstBlockBytes);
  }

  append(frame: string): void {
    this.store(frame);
    this.next++;
    if (this.blocks.length - this.head > this.replayLimit) {
      this.blocks[this.head] = undefined;
      this.head++;
      this.firstKept++;
      if (this.head >= this.replayLimit) {
        this.blocks = this.blocks.slice(this.head);
        this.starts = this.starts.slice(this.head);
        this.ends = this.ends.slice(this.head);
        this.head = 0;
      }
    }
    this.wake();
  }

  /** Encodes `frame` into the current block, or a new one when it does not fit. */
  private store(frame: string): void {
    let { read, written } = this.encoder.encodeInto(frame, this.block.subarray(this.filled));
    if (read < frame.length) {
      const bytes = this.encoder.encode(frame);
      if (bytes.byteLength > MAX_READ_BYTES) {
        // Alone in a block of its own; the current block goes on filling after it.
        this.blocks.push(bytes);
        this.starts.push(0);
        this.ends.push(bytes.byteLength);
        return;
      }
      this.block = new Uint8Array(Math.min(MAX_READ_BYTES, Math.max(this.block.byteLength * 2, bytes.byteLength)));
      this.block.set(bytes);
      this.filled = 0;
      written = bytes.byteLength;
    }
    this.blocks.push(this.block);
    this.starts.push(this.filled);
    this.filled += written;
    this.ends.push(this.filled);
  }

  end(ending: Ending): void {
    if (this.ending !== undefined) return;
    this.ending = ending;
    this.wake();
  }

  /**
   * The frames from id `from` on (and before `until`) that share its block (at least one, at most {@link MAX_READ_BYTES} unless
   * it is a longer frame alone), `undefined` while there is none; throws a {@link ReplayGapError} when
   * `from` is no longer kept.
   */
  readAt(from: number, until = this.next): { bytes: Uint8Array; next: number } | undefined {
    if (from >= Math.min(until, this.next)) return undefined;
    if (from < this.firstKept) throw new ReplayGapError(from, this.firstKept);
    const first = this.head + (from - this.firstKept);
    const end = this.head + (Math.min(until, this.next) - this.firstKept);
    const block = this.blocks[first] as Uint8Array;
    let last = first;
    while (last + 1 < end && this.blocks[last + 1] === block) last++;
    return { bytes: block.subarray(this.starts[first], this.ends[last]), next: from + (last - first) + 1 };
  }

  /** Resolves at the next change (a frame, the end, a viewer leaving). */
  changed(): Promise<void> {
    return new Promise<void>((resolve) => this.waiting.add(resolve));
  }

  /** Wakes every waiting reader (each checks again whether it has something to do). */
  wake(): void {
    const waiting = [...this.waiting];
    this.waiting.clear();
    for (const resolve of waiting) resolve();
  }

  /** A new viewer reading from id `from` on. */
  open(from: number): RunLogViewer {
    const viewer = new RunLogViewer(this, from);
    this.viewers.add(viewer);
    return viewer;
  }

  /** Lets go of a viewer that left. */
  leave(viewer: RunLogViewer): void {
    this.viewers.delete(viewer);
    this.wake();
  }

  /** Ends every viewer still reading with `error` and lets go of the frames: nothing refers to them any more. */
  forget(error: unknown): void {
    for (const viewer of [...this.viewers]) viewer.interrupt(error);
    this.viewers.clear();
    this.blocks = [];
    this.starts = [];
    this.ends = [];
    this.block = new Uint8Array(0);
    this.filled = 0;
    this.wake();
  }
}

/** One viewer's cursor into a {@link RunLog}, as the source of its event stream body. */
export class RunLogViewer implements FrameSource {
  private log: RunLog | undefined;
  private interruptWith: ((error: unknown) => void) | undefined;

  constructor(
    log: RunLog,
    private cursor: number,
  ) {
    this.log = log;
  }

  readonly take = async (): Promise<Uint8Array | undefined> => {
    for (;;) {
      const log = this.log;
      if (log === undefined) return undefined;
      const read = log.readAt(this.cursor);
      if (read !== undefined) {
        this.cursor = read.next;
        return read.bytes;
      }
      if (log.ending?.kind === 'error') throw log.ending.error;
      if (log.ending !== undefined) return undefined;
      await log.changed();
    }
  };

  readonly waiting = (): boolean => this.log !== undefined && this.cursor < this.log.next;

  /** The viewer left (or was cut off): it lets go of the log. */
  readonly cancel = (): void => {
    const log = this.log;
    this.log = undefined;
    this.interruptWith = undefined;
    log?.leave(this);
  };

  readonly onInterrupt = (interrupt: (error: unknown) => void): void => {
    this.interruptWith = interrupt;
  };

  /** Ends the viewer's body at once with `error` (its run is let go of). */
  interrupt(error: unknown): void {
    const interrupt = this.interruptWith;
    if (interrupt === undefined) this.cancel();
    else interrupt(error);
  }
}
