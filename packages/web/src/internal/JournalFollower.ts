import type { SchedulerLike, Subscription } from 'rxjs';
import { scheduleDelay, type RunStore } from '@rxagents/core';
import { encodeFrame, type Frame } from './eventStreamBody';
import { JOURNAL_PAGE_RECORDS, JournalCursor } from './JournalCursor';
import { MAX_READ_BYTES, RunLog } from './RunLog';

/** How many of the frames it read a follower keeps for the viewers behind the one that asked for them. */
export const FOLLOWER_FRAMES = 1_024;

/** What a {@link JournalFollower} needs of its registry. */
export interface FollowerHost {
  readonly store: RunStore;
  readonly frame: (event: unknown, id: number) => Frame;
  readonly scheduler: SchedulerLike;
  /** Milliseconds between reads of the journal once it was read to its end. */
  readonly pollMs: number;
  /** Asks the registry to take the run over (when its lease is free): `true` once it did. */
  readonly takeOver: (runId: string) => Promise<boolean>;
}

/**
 * The one reader of a run's journal that all its viewers in a registry share: it reads a page when a
 * viewer at its end asks for one (one read, however many viewers wait), keeps the latest
 * {@link FOLLOWER_FRAMES} frames for the viewers a little behind, and once it found the journal's end it
 * waits `pollMs` once for all of them before reading again. A viewer further behind than what it keeps,
 * or ahead of it, reads on its own until it reaches the follower.
 */
export class JournalFollower {
  // Blocks of the largest size from the start: a page read from a journal goes to a viewer in one piece.
  private log = new RunLog(FOLLOWER_FRAMES, MAX_READ_BYTES);
  /** The seq of the log's frame 0. */
  private base: number;
  private cursor: JournalCursor;
  private reading: Promise<number> | undefined;
  private polling: { readonly done: Promise<void>; readonly timer: Subscription; readonly resolve: () => void } | undefined;
  /** Whether the root's `run-end` was read: the journal holds nothing after it. */
  ended = false;
  /** How many viewers use it (it is let go of at 0). */
  users = 0;

  constructor(
    private readonly host: FollowerHost,
    readonly runId: string,
    from: number,
  ) {
    this.base = from;
    this.cursor = new JournalCursor(host.store, runId, from);
  }

  /** The seq of the oldest frame kept. */
  get oldest(): number {
    return this.base + this.log.oldest;
  }

  /** The seq of the next record it will read. */
  get next(): number {
    return this.base + this.log.next;
  }

  /** Whether it neither reads nor waits to read again now: it can move without keeping anybody waiting. */
  get idle(): boolean {
    return this.reading === undefined && this.polling === undefined;
  }

  /** The kept frames from `seq` on that share a block (see `RunLog.readAt`), `undefined` when it holds none. */
  readAt(seq: number): { bytes: Uint8Array; next: number } | undefined {
    if (seq < this.oldest || seq >= this.next) return undefined;
    const read = this.log.readAt(seq - this.base);
    return read === undefined ? undefined : { bytes: read.bytes, next: read.next + this.base };
  }

  /** Reads the journal's next page, or waits for the read under way: how many records that read added. */
  advance(): Promise<number> {
    if (this.reading !== undefined) return this.reading;
    const { cursor } = this;
    const start = cursor.next;
    let bytes = 0;
    const reading = cursor
      .page((record) => {
        const frame = encodeFrame(this.host.frame(record.event, record.seq));
        this.log.append(frame);
        bytes += frame.length;
        const { event } = record;
        if (event.type === 'run-end' && event.parentCallId === null) this.ended = true;
        return !this.ended && cursor.next - start < JOURNAL_PAGE_RECORDS && bytes < MAX_READ_BYTES;
      })
      .finally(() => {
        if (this.reading === reading) this.reading = undefined;
      });
    this.reading = reading;
    return reading;
  }

  /** Waits `pollMs` on the scheduler (one wait for every viewer), or less when the registry takes the run over meanwhile. */
  poll(): Promise<void> {
    if (this.polling !== undefined) return this.polling.done;
    let resolve = (): void => undefined;
    const done = new Promise<void>((settle) => (resolve = settle));
    const timer = scheduleDelay(this.host.scheduler, this.host.pollMs, () => this.stopPolling());
    this.polling = { done, timer, resolve };
    void this.host.takeOver(this.runId).then((tookOver) => {
      if (tookOver) this.stopPolling();
    });
    return done;
  }

  /** Starts again at `seq`, dropping what it kept (only when {@link idle}: nobody waits on it). */
  moveTo(seq: number): void {
    this.cursor.close();
    this.log = new RunLog(FOLLOWER_FRAMES, MAX_READ_BYTES);
    this.base = seq;
    this.cursor = new JournalCursor(this.host.store, this.runId, seq);
    this.ended = false;
  }

  /** Lets go of its read and its wait. */
  close(): void {
    this.cursor.close();
    this.stopPolling();
  }

  private stopPolling(): void {
    const polling = this.polling;
    this.polling = undefined;
    polling?.timer.unsubscribe();
    polling?.resolve();
  }
}
