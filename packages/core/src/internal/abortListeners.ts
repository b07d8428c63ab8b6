import { reportUnhandledError } from '../reportUnhandledError';

/** The one `'abort'` listener a signal carries, and the callbacks it calls. */
interface Waiting {
  readonly waiters: Set<() => void>;
  readonly dispatch: () => void;
}

/**
 * What waits for each signal's abort. An entry exists only while something waits and a `WeakMap` keeps no
 * signal alive: it holds what the signal's own listener list would otherwise hold.
 */
const WAITING = new WeakMap<AbortSignal, Waiting>();

/**
 * Calls `callback` once when `signal` aborts; returns the function that stops waiting.
 *
 * @remarks
 * However many calls wait on one signal (a thousand queued handoffs given the same `AbortSignal`), the
 * signal carries one `'abort'` listener, so Node never warns of a listener leak
 * (`MaxListenersExceededWarning`, past 10) and an abort costs one dispatch. The listener leaves the signal
 * with its last waiter. Waiters are called in the order they started waiting; one that throws is reported
 * through {@link reportUnhandledError} and the others are still called. The caller checks
 * `signal.aborted` first: a signal that already aborted dispatches nothing.
 *
 * @internal
 */
export function onAbort(signal: AbortSignal, callback: () => void): () => void {
  let waiting = WAITING.get(signal);
  if (waiting === undefined) {
    const waiters = new Set<() => void>();
    const dispatch = (): void => {
      WAITING.delete(signal);
      for (const waiter of [...waiters]) {
        try {
          waiter();
        } catch (error) {
          reportUnhandledError(error);
        }
      }
    };
    waiting = { waiters, dispatch };
    WAITING.set(signal, waiting);
    signal.addEventListener('abort', dispatch, { once: true });
  }
  // A wrapper per call, so one function waiting twice is two waiters, as with addEventListener.
  const waiter = (): void => callback();
  const registered = waiting;
  registered.waiters.add(waiter);
  return () => {
    if (!registered.waiters.delete(waiter) || registered.waiters.size > 0 || WAITING.get(signal) !== registered) return;
    WAITING.delete(signal);
    signal.removeEventListener('abort', registered.dispatch);
  };
}
