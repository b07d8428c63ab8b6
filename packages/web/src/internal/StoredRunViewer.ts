import type { SchedulerLike } from 'rxjs';
import type { RunStore } from '@rxagents/core';
import type { ExposeError } from '../redactError';
import { encodeFrame, type Frame, type FrameSource } from './eventStreamBody';
import { JOURNAL_PAGE_RECORDS, JournalCursor } from './JournalCursor';
import type { JournalFollower } from './JournalFollower';
import { MAX_READ_BYTES, type RunLog } from './RunLog';

/** A run this registry holds in memory, as a viewer of a store-backed registry reads it. */
export interface HeldRun {
  readonly log: RunLog;
  /** How many of its events the store holds: a viewer is shown no event before the store has it (once the run ended, all). */
  readonly journaled: () => number;
}

/** What a {@link StoredRunViewer} needs of its registry. */
export interface StoredRunHost {
  readonly store: RunStore;
  readonly frame: (event: unknown, id: number) => Frame;
  readonly exposeError: ExposeError;
  readonly scheduler: SchedulerLike;
  /** Milliseconds between reads of the journal of a run that runs elsewhere; `Infinity`: no polling. */
  readonly pollMs: number;
  /** The run, when this registry holds it now. */
  readonly held: (runId: string) => HeldRun | undefined;
  /** The run's shared journal follower (made at `from` when it has none), until {@link unfollow}. */
  readonly follow: (runId: string, from: number) => JournalFollower;
  /** Lets go of a follower `follow` gave. */
  readonly unfollow: (follower: JournalFollower) => void;
  /** Lets go of a viewer that ended. */
  readonly left: (viewer: StoredRunViewer) => void;
}

/**
 * One viewer of a store-backed registry: from its cursor on, the run's journal while the events it needs
 * are older than what the registry holds in memory (or the run is not held here), then the registry's
 * shared in-memory frames. The journal comes from the run's {@link JournalFollower}, which all the run's
 * viewers share; a viewer behind what the follower keeps (or ahead of it) reads pages of its own until it
 * reaches it. Each frame's id is the record's `seq`.
 */
export class StoredRunViewer implements FrameSource {
  readonly exposeError: ExposeError;
  private cancelled = false;
  /** Whether the journal holds more than the last read gave (or is not known not to). */
  private more = true;
  /** Whether the root's `run-end` went out. */
  private ended = false;
  private follower: JournalFollower | undefined;
  /** The viewer's own read, while it is behind or ahead of the follower. */
  private own: JournalCursor | undefined;
  private interruptWith: ((error: unknown) => void) | undefined;
  /** Ends the current wait early (the viewer left). */
  private wakeUp: (() => void) | undefined;

  constructor(
    private readonly host: StoredRunHost,
    private readonly runId: string,
    private cursor: number,
  ) {
    this.exposeError = host.exposeError;
  }

  readonly take = async (): Promise<Uint8Array | undefined> => {
    try {
      const chunk = await this.next();
      if (chunk === undefined) this.leave();
      return chunk;
    } catch (error) {
      this.leave();
      throw error;
    }
  };

  /** The next chunk of frames, `undefined` at the end. */
  private async next(): Promise<Uint8Array | undefined> {
    for (;;) {
      if (this.cancelled || this.ended) return undefined;
      const run = this.host.held(this.runId);
      if (run !== undefined && this.cursor >= run.log.oldest) {
        const { log } = run;
        const visible = log.ending === undefined ? Math.min(log.next, run.journaled()) : log.next;
        const read = log.readAt(this.cursor, visible);
        if (read !== undefined) {
          this.cursor = read.next;
          return read.bytes;
        }
        if (this.cursor >= log.next) {
          if (log.ending?.kind === 'error') throw log.ending.error;
          if (log.ending !== undefined) return undefined;
        }
        await this.until(log.changed());
        continue;
      }
      this.follower ??= this.host.follow(this.runId, this.cursor);
      const follower = this.follower;
      const shared = follower.readAt(this.cursor);
      if (shared !== undefined) {
        this.closeOwn();
        this.cursor = shared.next;
        return shared.bytes;
      }
      if (this.cursor === follower.next) {
        this.closeOwn();
        if (follower.ended) return undefined;
        const added = await this.until(follower.advance());
        this.more = added !== 0;
        if (added !== 0) continue;
      } else {
        const page = await this.page();
        if (page !== undefined) return page;
        // At the journal's end, ahead of a follower nobody waits on: the follower moves here.
        if (!this.ended && !this.cancelled && follower.idle && this.cursor > follower.next) {
          follower.moveTo(this.cursor);
          continue;
        }
      }
      if (this.ended || this.cancelled) return undefined;
      // Older events the store does not hold yet: they are on their way to it.
      if (run !== undefined) {
        await this.until(run.log.changed());
        continue;
      }
      // The run goes on elsewhere (or nowhere yet): read its journal again later, unless not asked to.
      if (this.host.pollMs === Infinity) return undefined;
      await this.until(follower.poll());
    }
  }

  readonly waiting = (): boolean => {
    if (this.cancelled || this.ended) return false;
    const run = this.host.held(this.runId);
    if (run !== undefined && this.cursor >= run.log.oldest) return this.cursor < (run.log.ending === undefined ? Math.min(run.log.next, run.journaled()) : run.log.next);
    const follower = this.follower;
    if (follower !== undefined && this.cursor >= follower.oldest && this.cursor < follower.next) return true;
    return this.more;
  };

  readonly cancel = (): void => {
    if (this.cancelled) return;
    this.cancelled = true;
    this.interruptWith = undefined;
    const wakeUp = this.wakeUp;
    this.wakeUp = undefined;
    wakeUp?.();
    this.leave();
  };

  readonly onInterrupt = (interrupt: (error: unknown) => void): void => {
    this.interruptWith = interrupt;
  };

  /** Ends the viewer's body at once with `error` (its registry let go of everything). */
  interrupt(error: unknown): void {
    const interrupt = this.interruptWith;
    if (interrupt === undefined) this.cancel();
    else interrupt(error);
  }

  /** The frames of the journal's next records from the cursor on, read on the viewer's own, `undefined` when it holds none yet. */
  private async page(): Promise<Uint8Array | undefined> {
    const { store, frame } = this.host;
    if (this.own?.next !== this.cursor) {
      this.closeOwn();
      this.own = new JournalCursor(store, this.runId, this.cursor);
    }
    const own = this.own;
    let text = '';
    let count = 0;
    let full = false;
    await own.page((record) => {
      if (this.cancelled) return false;
      text += encodeFrame(frame(record.event, record.seq));
      count++;
      const { event } = record;
      if (event.type === 'run-end' && event.parentCallId === null) this.ended = true;
      full = count >= JOURNAL_PAGE_RECORDS || text.length >= MAX_READ_BYTES;
      return !this.ended && !full;
    });
    this.more = full;
    if (this.cancelled || count === 0) return undefined;
    this.cursor = own.next;
    return new TextEncoder().encode(text);
  }

  /** `promise`, or `undefined` at once when the viewer leaves first. */
  private until<T>(promise: Promise<T>): Promise<T | undefined> {
    return new Promise<T | undefined>((resolve, reject) => {
      this.wakeUp = () => resolve(undefined);
      promise.then(resolve, reject);
    });
  }

  private closeOwn(): void {
    this.own?.close();
    this.own = undefined;
  }

  /** Lets go of what the viewer holds: its own read, its follower, its place among the registry's viewers. */
  private leave(): void {
    this.closeOwn();
    const follower = this.follower;
    this.follower = undefined;
    if (follower !== undefined) this.host.unfollow(follower);
    this.host.left(this);
  }
}
