import type { SchedulerLike, Subscription } from 'rxjs';
import { CoordinationError, RunStoreError, scheduleDelay, type RunStore } from '@rxagents/core';
import type { ExposeError } from '../redactError';
import { encodeFrame, type Frame, type FrameSource } from './eventStreamBody';
import { MAX_READ_BYTES, type RunLog } from './RunLog';

/** The most records one read of a journal takes (and at most {@link MAX_READ_BYTES} of frames). */
export const JOURNAL_PAGE_RECORDS = 256;

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
  /** Asks the registry to take the run over (when its lease is free): `true` once it did, and it shows as `held`. */
  readonly takeOver: (runId: string) => Promise<boolean>;
  /** Lets go of a viewer that ended. */
  readonly left: (viewer: StoredRunViewer) => void;
}

/**
 * One viewer of a store-backed registry: from its cursor on, the run's journal read from the store a page
 * at a time while the events it needs are older than what the registry holds in memory (or the run is not
 * held here), then the registry's shared in-memory frames. Each frame's id is the record's `seq`.
 */
export class StoredRunViewer implements FrameSource {
  readonly exposeError: ExposeError;
  private cancelled = false;
  /** Whether the journal holds more than the last page gave (or is not known not to). */
  private more = true;
  /** Whether the root's `run-end` went out. */
  private ended = false;
  private interruptWith: ((error: unknown) => void) | undefined;
  private wait: { timer: Subscription; resolve: () => void } | undefined;

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
      if (chunk === undefined) this.host.left(this);
      return chunk;
    } catch (error) {
      this.host.left(this);
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
        await log.changed();
        continue;
      }
      const page = await this.page();
      if (page !== undefined) return page;
      if (this.ended || this.cancelled) return undefined;
      // Older events the store does not hold yet: they are on their way to it.
      if (run !== undefined) {
        await run.log.changed();
        continue;
      }
      // The run goes on elsewhere (or nowhere yet): read its journal again later, unless not asked to.
      if (this.host.pollMs === Infinity) return undefined;
      const pause = this.pause();
      void this.host.takeOver(this.runId).then((tookOver) => {
        if (tookOver) this.wake();
      });
      await pause;
    }
  }

  readonly waiting = (): boolean => {
    if (this.cancelled || this.ended) return false;
    const run = this.host.held(this.runId);
    if (run !== undefined && this.cursor >= run.log.oldest) return this.cursor < (run.log.ending === undefined ? Math.min(run.log.next, run.journaled()) : run.log.next);
    return this.more;
  };

  readonly cancel = (): void => {
    if (this.cancelled) return;
    this.cancelled = true;
    this.interruptWith = undefined;
    this.wake();
    this.host.left(this);
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

  /** The frames of the journal's next records from the cursor on, `undefined` when it holds none yet. */
  private async page(): Promise<Uint8Array | undefined> {
    const { store, frame } = this.host;
    let text = '';
    let count = 0;
    let next = this.cursor;
    this.more = false;
    try {
      for await (const record of store.read(this.runId, this.cursor)) {
        if (this.cancelled) return undefined;
        // A record out of place would repeat an event or leave a gap: only the next one is taken.
        if (record.seq !== next) break;
        text += encodeFrame(frame(record.event, record.seq));
        next++;
        count++;
        const { event } = record;
        if (event.type === 'run-end' && event.parentCallId === null) {
          this.ended = true;
          break;
        }
        if (count >= JOURNAL_PAGE_RECORDS || text.length >= MAX_READ_BYTES) {
          this.more = true;
          break;
        }
      }
    } catch (error) {
      throw error instanceof CoordinationError ? error : new RunStoreError('read', this.runId, error);
    }
    if (count === 0) return undefined;
    this.cursor = next;
    return new TextEncoder().encode(text);
  }

  /** Waits `pollMs` on the scheduler (or until the viewer leaves). */
  private pause(): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = scheduleDelay(this.host.scheduler, this.host.pollMs, () => this.wake());
      this.wait = { timer, resolve };
    });
  }

  private wake(): void {
    const wait = this.wait;
    this.wait = undefined;
    wait?.timer.unsubscribe();
    wait?.resolve();
  }
}
