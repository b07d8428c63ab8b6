import { CoordinationError } from '../../errors/CoordinationError';
import { RunStoreError } from '../../errors/RunStoreError';
import type { RunEvent } from '../../events/RunEvent';
import type { RunLease, RunStore } from '../../store/RunStore';

/** While more events than this wait for the store, the run is paced (agent calls wait before they start). */
export const JOURNAL_PACE_LIMIT = 4_096;

/** A `whenJournaled` waiting: for the events up to `upTo`. */
interface Told {
  readonly upTo: number;
  readonly then: (journaled: boolean) => void;
}

/**
 * Appends a run's new events to its journal by group commit: one `append` in flight at a time, carrying
 * everything queued since the previous one (a synchronous burst goes in one append).
 */
export class JournalWriter {
  #queue: RunEvent[] = [];
  /** Events taken so far, and how many of them the store holds: an event's number says when it is journaled. */
  #taken = 0;
  #journaled = 0;
  /** Told whether the events up to `upTo` were journaled, in the order they were pushed. */
  #told: Told[] = [];
  #busy = false;
  #scheduled = false;
  #accepting: boolean;
  #idle: (() => void)[] = [];
  #room: (() => void)[] = [];

  constructor(
    private readonly store: RunStore,
    private readonly runId: string,
    private readonly lease: () => RunLease | undefined,
    private readonly onFail: (error: CoordinationError) => void,
    accepting: boolean,
  ) {
    this.#accepting = accepting;
  }

  /** Queues `event` for the journal: its number (for {@link JournalWriter.whenJournaled}), or 0 when nothing more is taken. */
  push(event: RunEvent): number {
    if (!this.#accepting) return 0;
    this.#queue.push(event);
    this.#taken++;
    if (!this.#busy && !this.#scheduled) {
      this.#scheduled = true;
      queueMicrotask(this.#flush);
    }
    return this.#taken;
  }

  /** A Promise while too many events wait for the store, `undefined` when the run may go on. */
  gate(): PromiseLike<void> | undefined {
    if (this.#queue.length <= JOURNAL_PACE_LIMIT) return undefined;
    return new Promise<void>((resolve) => this.#room.push(resolve));
  }

  /**
   * Tells `then` whether the event `number` (as {@link JournalWriter.push} gave it) is journaled: `true`
   * once the store holds it, `false` when it never will (not taken, dropped, or its append failed). Asked
   * in the order of the events, the calls come in that order.
   */
  whenJournaled(number: number, then: (journaled: boolean) => void): void {
    if (number === 0 || number > this.#taken) then(false);
    else if (number <= this.#journaled) then(true);
    else this.#told.push({ upTo: number, then });
  }

  /** Takes nothing more; what is queued and not yet handed to the store is dropped. */
  discard(): void {
    this.#accepting = false;
    this.#taken -= this.#queue.length;
    this.#queue = [];
    this.#tell();
  }

  /** Takes nothing more; what is queued is still appended. */
  close(): void {
    this.#accepting = false;
  }

  /** Runs `then` once nothing is queued or in flight. */
  whenIdle(then: () => void): void {
    if (!this.#busy && !this.#scheduled && this.#queue.length === 0) then();
    else this.#idle.push(then);
  }

  readonly #flush = (): void => {
    this.#scheduled = false;
    if (this.#busy) return;
    const batch = this.#queue;
    if (batch.length === 0) {
      this.#settle();
      return;
    }
    this.#queue = [];
    this.#busy = true;
    this.#wake();
    let appended: Promise<void>;
    try {
      appended = Promise.resolve(this.store.append(this.runId, batch, this.lease()));
    } catch (error) {
      appended = Promise.reject(error);
    }
    appended.then(
      () => {
        this.#busy = false;
        this.#journaled += batch.length;
        this.#tell();
        if (this.#queue.length > 0) this.#flush();
        else this.#settle();
      },
      (error: unknown) => {
        this.#busy = false;
        this.#accepting = false;
        this.#taken = this.#journaled;
        this.#queue = [];
        this.#tell();
        this.#wake();
        this.onFail(error instanceof CoordinationError ? error : new RunStoreError('append', this.runId, error));
        this.#settle();
      },
    );
  };

  /** Tells each waiting `whenJournaled` whose events are now journaled, or can no longer be. */
  #tell(): void {
    const waiting = this.#told;
    const settled = (upTo: number): boolean => upTo <= this.#journaled || upTo > this.#taken;
    let told = 0;
    while (told < waiting.length && settled((waiting[told] as Told).upTo)) told++;
    if (told === 0) return;
    // Taken off the list before any is told: a `then` may push, ask or discard again.
    this.#told = waiting.slice(told);
    for (const { upTo, then } of waiting.slice(0, told)) then(upTo <= this.#journaled);
  }

  #wake(): void {
    const waiting = this.#room;
    this.#room = [];
    for (const resolve of waiting) resolve();
  }

  #settle(): void {
    if (this.#busy || this.#scheduled || this.#queue.length > 0) return;
    const waiting = this.#idle;
    this.#idle = [];
    for (const then of waiting) then();
  }
}
