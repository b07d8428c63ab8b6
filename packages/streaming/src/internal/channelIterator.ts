import type { Subscription } from 'rxjs';
import type { ChannelObserver } from '../ChannelSubscriber';
import { Ack } from './Ack';

type Subscribe<T> = (observer: Partial<ChannelObserver<T>>) => Subscription;

/**
 * An async iterator over a channel that paces it: the dispatcher waits until the loop body has run
 * (the next `next()` call) before it hands over the following item.
 *
 * @internal
 */
export function channelIterator<T>(subscribe: Subscribe<T>): AsyncIterableIterator<T> {
  let item: { value: T; gate: Ack } | undefined;
  let consumed: Ack | undefined;
  let waiting: ((result: IteratorResult<T>) => void) | undefined;
  let failWaiting: ((error: unknown) => void) | undefined;
  let done = false;
  let failure: { error: unknown } | undefined;

  const subscription = subscribe({
    next: (value) => {
      const gate = new Ack();
      if (waiting !== undefined) {
        const resolve = waiting;
        waiting = undefined;
        failWaiting = undefined;
        consumed = gate;
        resolve({ value, done: false });
      } else {
        item = { value, gate };
      }
      return gate;
    },
    error: (error) => {
      failure = { error };
      if (failWaiting !== undefined) failWaiting(error);
      waiting = undefined;
      failWaiting = undefined;
    },
    complete: () => {
      done = true;
      if (waiting !== undefined) waiting({ value: undefined, done: true });
      waiting = undefined;
      failWaiting = undefined;
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
        waiting = resolve;
        failWaiting = reject;
      });
    },
    return: () => {
      done = true;
      item = undefined;
      subscription.unsubscribe();
      waiting?.({ value: undefined, done: true });
      waiting = undefined;
      return Promise.resolve({ value: undefined, done: true });
    },
    [Symbol.asyncIterator]() {
      return iterator;
    },
  };
  return iterator;
}
