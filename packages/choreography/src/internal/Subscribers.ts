import type { Subscriber, TeardownLogic } from 'rxjs';

/**
 * The subscribers of a hand-made hot Observable: each value goes to the subscribers present when its
 * delivery starts (a copy of the list, rebuilt only after one comes or goes, so a subscriber that leaves
 * or joins mid-delivery does not disturb it).
 *
 * @internal
 */
export class Subscribers<T> {
  readonly #set = new Set<Subscriber<T>>();
  #snapshot: readonly Subscriber<T>[] | undefined = undefined;

  get size(): number {
    return this.#set.size;
  }

  /** Adds `subscriber`; returns the teardown that removes it. */
  add(subscriber: Subscriber<T>): TeardownLogic {
    this.#set.add(subscriber);
    this.#snapshot = undefined;
    return () => {
      this.#set.delete(subscriber);
      this.#snapshot = undefined;
    };
  }

  /** Hands `value` to every subscriber present now. */
  next(value: T): void {
    this.#snapshot ??= [...this.#set];
    for (const subscriber of this.#snapshot) subscriber.next(value);
  }

  /** Forgets every subscriber, then completes each. */
  complete(): void {
    const subscribers = [...this.#set];
    this.#set.clear();
    this.#snapshot = undefined;
    for (const subscriber of subscribers) subscriber.complete();
  }
}
