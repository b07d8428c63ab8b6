import { Observable } from 'rxjs';
import { Subscribers } from './Subscribers';

/**
 * What a run heard, kept for replay: `items$` replays every item so far to each subscriber, then
 * follows live, and completes once the log is completed.
 *
 * @remarks
 * The part of a `ReplaySubject` with no buffer limit that an engine's `steps$` and `busEvents$` use,
 * at a lower price per item: a run adds one item per event and one per step, mostly with nobody
 * subscribed, and `Subject.next` allocates a closure for its error context on every call. Delivery is
 * to the subscribers present when an item arrives (a copy of the list, rebuilt only after one comes
 * or goes). A late subscriber gets the items in order, those added while it is being replayed
 * included, and each once.
 *
 * @internal
 */
export class ReplayLog<T> {
  readonly #items: T[] = [];
  readonly #subscribers = new Subscribers<T>();
  #completed = false;

  /** Every item so far, then each new one, then completion once the log is completed. */
  readonly items$: Observable<T> = new Observable<T>((subscriber) => {
    const items = this.#items;
    for (let index = 0; index < items.length && !subscriber.closed; index += 1) subscriber.next(items[index] as T);
    if (this.#completed) {
      subscriber.complete();
      return undefined;
    }
    return this.#subscribers.add(subscriber);
  });

  /** Adds an item and hands it to every current subscriber; ignored once completed. */
  next(item: T): void {
    if (this.#completed) return;
    this.#items.push(item);
    if (this.#subscribers.size > 0) this.#subscribers.next(item);
  }

  /** Completes every subscriber, now and to come; later items are ignored. */
  complete(): void {
    if (this.#completed) return;
    this.#completed = true;
    this.#subscribers.complete();
  }
}
