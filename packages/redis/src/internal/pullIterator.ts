import type { ChannelObserver } from '@rxagents/streaming';
import type { Subscription } from 'rxjs';

/**
 * An async iterator over a consumer that it paces: the handler's Promise settles when the loop asks for
 * the next item, so the consumer reads the next entry only once the loop body has run.
 */
export function pullIterator<T>(subscribe: (observer: ChannelObserver<T>) => Subscription): AsyncIterableIterator<T> {
  let held: { value: T; release: () => void } | undefined;
  let waiter: { resolve: (result: IteratorResult<T>) => void; reject: (error: unknown) => void } | undefined;
  let release: (() => void) | undefined;
  let ended: { error: unknown } | undefined;
  let failed = false;

  const subscription = subscribe({
    next: (value) =>
      new Promise<void>((resolve) => {
        if (waiter === undefined) held = { value, release: resolve };
        else {
          const current = waiter;
          waiter = undefined;
          release = resolve;
          current.resolve({ value, done: false });
        }
      }),
    error: (error) => {
      ended = { error };
      failed = true;
      settleWaiter();
    },
    complete: () => {
      ended = { error: undefined };
      settleWaiter();
    },
  });

  function settleWaiter(): void {
    const current = waiter;
    waiter = undefined;
    if (current === undefined) return;
    if (failed) {
      failed = false;
      current.reject(ended?.error);
    } else current.resolve({ value: undefined, done: true });
  }

  const iterator: AsyncIterableIterator<T> = {
    next: () => {
      release?.();
      release = undefined;
      if (held !== undefined) {
        const { value, release: next } = held;
        held = undefined;
        release = next;
        return Promise.resolve({ value, done: false });
      }
      if (ended !== undefined) {
        if (!failed) return Promise.resolve({ value: undefined, done: true });
        failed = false;
        return Promise.reject(ended.error);
      }
      return new Promise<IteratorResult<T>>((resolve, reject) => (waiter = { resolve, reject }));
    },
    return: () => {
      ended ??= { error: undefined };
      failed = false;
      subscription.unsubscribe();
      release?.();
      held?.release();
      held = undefined;
      return Promise.resolve({ value: undefined, done: true });
    },
    [Symbol.asyncIterator]: () => iterator,
  };
  return iterator;
}
