import { Ack } from './Ack';

/** How many derived channels an item may pass through on one stack before the relay takes over. */
const MAX_NESTING = 32;

/**
 * Hands items and completion from a channel to the channels derived from it (`map`/`filter`), at any
 * depth, in constant stack.
 *
 * @remarks
 * A channel and every channel derived from it, directly or not, share one relay. Up to
 * {@link MAX_NESTING} nested hand-overs run at once, as plain calls (so a short chain costs nothing);
 * deeper ones are queued and run, in order, by the outermost hand-over before it returns. A queued
 * item answers its parent's subscriber with an {@link Ack} released once the child has taken the item
 * (or, under `BLOCK`, once its parked offer settled), so the parent waits for it as for any pending
 * handler and order is kept. Everything still happens before the producer's `emit` returns.
 *
 * @internal
 */
export class DerivationRelay {
  #depth = 0;
  #flushing = false;
  #queue: (() => void)[] = [];
  #head = 0;

  /** Hands one item over with `forward`; what `forward` throws when queued goes to `report`. */
  next(forward: () => PromiseLike<unknown> | undefined, report: (error: unknown) => void): PromiseLike<unknown> | undefined {
    if (this.#depth < MAX_NESTING) return this.#enter(forward);
    const ack = new Ack();
    const release = (): void => ack.release();
    this.#queue.push(() => {
      let result: PromiseLike<unknown> | undefined;
      try {
        result = forward();
      } catch (error) {
        report(error);
      }
      if (result === undefined) release();
      else result.then(release, release);
    });
    return ack;
  }

  /** Runs `end` (completing or closing a derived channel) now, or queued behind the hand-overs in flight. */
  end(end: () => void, report: (error: unknown) => void): void {
    if (this.#depth < MAX_NESTING) {
      this.#enter(end);
      return;
    }
    this.#queue.push(() => {
      try {
        end();
      } catch (error) {
        report(error);
      }
    });
  }

  #enter<R>(work: () => R): R {
    this.#depth += 1;
    try {
      return work();
    } finally {
      this.#depth -= 1;
      if (this.#depth === 0 && !this.#flushing && this.#head < this.#queue.length) this.#flush();
    }
  }

  #flush(): void {
    this.#flushing = true;
    try {
      while (this.#head < this.#queue.length) {
        const task = this.#queue[this.#head] as () => void;
        this.#queue[this.#head] = noop;
        this.#head += 1;
        this.#enter(task);
      }
    } finally {
      this.#queue = [];
      this.#head = 0;
      this.#flushing = false;
    }
  }
}

const noop = (): void => undefined;
