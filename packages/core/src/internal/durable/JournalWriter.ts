import { CoordinationError } from '../../errors/CoordinationError';
import { RunStoreError } from '../../errors/RunStoreError';
import type { RunEvent } from '../../events/RunEvent';
import type { RunLease, RunStore } from '../../store/RunStore';

/** While more events than this wait for the store, the run is paced (agent calls wait before they start). */
export const JOURNAL_PACE_LIMIT = 4_096;

/**
 * Appends a run's new events to its journal by group commit: one `append` in flight at a time, carrying
 * everything queued since the previous one (a synchronous burst goes in one append).
 */
export class JournalWriter {
  #queue: RunEvent[] = [];
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

  push(event: RunEvent): void {
    if (!this.#accepting) return;
    this.#queue.push(event);
    if (!this.#busy && !this.#scheduled) {
      this.#scheduled = true;
      queueMicrotask(this.#flush);
    }
  }

  /** A Promise while too many events wait for the store, `undefined` when the run may go on. */
  gate(): PromiseLike<void> | undefined {
    if (this.#queue.length <= JOURNAL_PACE_LIMIT) return undefined;
    return new Promise<void>((resolve) => this.#room.push(resolve));
  }

  /** Takes nothing more; what is queued and not yet handed to the store is dropped. */
  discard(): void {
    this.#accepting = false;
    this.#queue = [];
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
        if (this.#queue.length > 0) this.#flush();
        else this.#settle();
      },
      (error: unknown) => {
        this.#busy = false;
        this.#accepting = false;
        this.#queue = [];
        this.#wake();
        this.onFail(error instanceof CoordinationError ? error : new RunStoreError('append', this.runId, error));
        this.#settle();
      },
    );
  };

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
