import type { Subscription } from 'rxjs';
import type { ChannelObserver } from '../ChannelSubscriber';
import { Ack } from './Ack';

type Subscribe<T> = (observer: Partial<ChannelObserver<T>>) => Subscription;

/** A `next()` call waiting for an item. */
interface Waiter<T> {
  readonly resolve: (result: IteratorResult<T>) => void;
  readonly reject: (error: unknown) => void;
}

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
  // The oldest `next()` call waiting for an item, in two fields (a `for await` loop has at most one), and
  // the calls made while it waited, oldest first.
  let waitingResolve: ((result: IteratorResult<T>) => void) | undefined;
  let waitingReject: ((error: unknown) => void) | undefined;
  let later: Waiter<T>[] = [];
  /** Index in `later` of the oldest call still waiting (no `Array.prototype.shift` on a queue). */
  let laterHead = 0;
  let done = false;
  let failure: { error: unknown } | undefined;

  const settleWaiting = (settle: (waiter: Waiter<T>) => void): void => {
    const waiters = waitingResolve === undefined ? [] : [{ resolve: waitingResolve, reject: waitingReject as Waiter<T>['reject'] }, ...later.slice(laterHead)];
    waitingResolve = waitingReject = undefined;
    later = [];
    laterHead = 0;
    for (const waiter of waiters) settle(waiter);
  };

  const subscription = subscribe({
    next: (value) => {
      const resolve = waitingResolve;
      if (resolve === undefined) {
        const gate = new Ack();
        item = { value, gate };
        return gate;
      }
      // (Checked against the length first: reading past the end of an array is slow in V8.)
      if (laterHead === later.length) waitingResolve = waitingReject = undefined;
      else {
        const following = later[laterHead] as Waiter<T>;
        waitingResolve = following.resolve;
        waitingReject = following.reject;
        laterHead += 1;
        if (laterHead === later.length) {
          later = [];
          laterHead = 0;
        }
      }
      resolve({ value, done: false });
      // Another next() already waits: this item is taken, hand over the following one.
      if (waitingResolve !== undefined) return undefined;
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
      return new Promise<IteratorResult<T>>((resolve, reject) => {
        if (waitingResolve === undefined) {
          waitingResolve = resolve;
          waitingReject = reject;
        } else later.push({ resolve, reject });
      });
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
