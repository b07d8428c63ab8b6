import type { RunEvent, RunEventOf } from '../../events/RunEvent';
import type { JournalWriter } from './JournalWriter';

/** Delivered slots kept at the front of a queue that never empties, before it is copied down (amortized O(1)). */
const COMPACT_AFTER = 1_024;

interface Held {
  readonly event: RunEvent;
  /** False while the journaling of this `interrupt` is not settled. */
  ready: boolean;
  /** An `interrupt` the journal will never hold: not shown. */
  dropped: boolean;
}

/**
 * Gives a durable run's new events to its reader in their order, none before the journal holds every new
 * `interrupt` ahead of it.
 *
 * @remarks
 * A question's id is what a person answers it by, from a page that may outlive this process. Shown before
 * the journal holds it, a crash in between would lose it (the resumed run never heard of that id and asks
 * under a new one). Held until it is journaled, the id any reader saw is one the resumed run asks under
 * again. What follows the question waits with it, so the reader's order stays the journal's (an answer
 * taken meanwhile has its `interrupt-end` after its `interrupt`); the wait is one append, and what it
 * holds is what the journal's own queue holds. A question the journal will never hold (its append failed,
 * the run stopped first) is never shown, nor its end.
 */
export class InterruptHold {
  #held: (Held | undefined)[] = [];
  #head = 0;
  #draining = false;
  /** Interrupts never shown whose `interrupt-end` has not come yet (ids the run chose: a `Set`). */
  readonly #dropped = new Set<string>();

  constructor(
    private readonly writer: JournalWriter,
    private readonly deliver: (event: RunEvent) => void,
    /** The journal holds this question: it may be listed and answered from outside before any reader sees it. */
    private readonly journaled: (event: RunEventOf<'interrupt'>) => void,
  ) {}

  /** A new event of the run; `number` is its place in the writer's queue (0: not journaled). */
  say(event: RunEvent, number: number): void {
    if (event.type !== 'interrupt') {
      if (this.#head === this.#held.length && !this.#draining) this.#show(event);
      else this.#held.push({ event, ready: true, dropped: false });
      return;
    }
    const held: Held = { event, ready: false, dropped: false };
    this.#held.push(held);
    this.writer.whenJournaled(number, (journaled) => {
      held.ready = true;
      if (journaled) this.journaled(event);
      else {
        held.dropped = true;
        this.#dropped.add(event.interruptId);
      }
      this.#drain();
    });
  }

  #drain(): void {
    if (this.#draining) return;
    this.#draining = true;
    try {
      while (this.#head < this.#held.length) {
        const held = this.#held[this.#head] as Held;
        if (!held.ready) break;
        this.#held[this.#head] = undefined;
        this.#head++;
        if (!held.dropped) this.#show(held.event);
      }
    } finally {
      this.#draining = false;
      if (this.#head === this.#held.length) {
        this.#held = [];
        this.#head = 0;
      } else if (this.#head >= COMPACT_AFTER) {
        this.#held = this.#held.slice(this.#head);
        this.#head = 0;
      }
    }
  }

  #show(event: RunEvent): void {
    if (event.type === 'interrupt-end' && this.#dropped.delete(event.interruptId)) return;
    this.deliver(event);
  }
}
