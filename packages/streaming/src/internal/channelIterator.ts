import type { Subscription } from 'rxjs';
import type { ChannelObserver } from '../ChannelSubscriber';
import { Ack } from './Ack';

type Subscribe<T> = (observer: Partial<ChannelObserver<T>>) => Subscription;

/**
 * An async iterator over a channel that paces it: the dispatcher waits until the loop body has run
 * (the next `next()` call) before it hands over the following item.
 *
 * `next()` calls made before their items arrive (`Promise.all([it.next(), it.next()])`) are answered in
 * order, one item each, as an async generator answers them: a consumer that asked for more than one
 * item has already taken the earlier ones, so their items are not held back.
 *
 * @internal
 */
export function channelIterator<T>(subscribe: Subscribe<T>): AsyncIterableIterator<T> {
  let item: { value: T; gate: Ack } | undefined;
  let consumed: Ack | undefined;
  /** `next()` calls waiting for an item, oldest first. */
  let waiting: { resolve: (result: IteratorResult<T>) => void; reject: (error: unknown) => void }[] = [];
  /** Index in `waiting` of the oldest call still waiting (no `Array.prototype.shift` on a queue). */
  let head = 0;
  let done = false;
  let failure: { error: unknown } | undefined;

  const settleWaiting = (settle: (waiter: (typeof waiting)[number]) => void): void => {
    const waiters = waiting.slice(head);
    waiting = [];
    head = 0;
    for (const waiter of waiters) settle(waiter);
  };

  const subscription = subscribe({
    next: (value) => {
      const waiter = waiting[head];
      if (waiter === undefined) {
        const gate = new Ack();
        item = { value, gate };
        return gate;
      }
      head += 1;
      const more = head < waiting.length;
      if (!more) {
        waiting.length = 0;
        head = 0;
      }
      waiter.resolve({ value, done: false });
      // Another next() already waits: this item is taken, hand over the following one.
      if (more) return undefined;
      const gate = new Ack();
      consumed = gate;
      return gate;
    },
    error: (error) => {
      failure = { error };
      settleWaiting((waiter) => waiter.reject(error));
    },
    complete: () => {
      done = true;
      settleWaiting((waiter) => waiter.resolve({ value: undefined, done: true }));
    },
  });

  const iterator: AsyncIterableIterator<T> = {
    next: () => {
      const previous = consumed;
      consumed = undefined;
      previous?.release();
      if (item !== undefined) {
        const { value, gate } = item;
        item = undefined;
        consumed = gate;
        return Promise.resolve({ value, done: false });
      }
      if (failure !== undefined) return Promise.reject(failure.error);
      if (done) return Promise.resolve({ value: undefined, done: true });
      return new Promise<IteratorResult<T>>((resolve, reject) => waiting.push({ resolve, reject }));
    },
    return: () => {
      done = true;
      item = undefined;
      subscription.unsubscribe();
      settleWaiting((waiter) => waiter.resolve({ value: undefined, done: true }));
      return Promise.resolve({ value: undefined, done: true });
    },
    [Symbol.asyncIterator]() {
      return iterator;
    },
  };
  return iterator;
}
