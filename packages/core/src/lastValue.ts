import { EmptyError, type Observable } from 'rxjs';
import { ConfigError } from './errors/ConfigError';
import { onAbort as waitForAbort } from './internal/abortListeners';
import { checkSignal } from './internal/checkSignal';
import { reportUnhandledError } from './reportUnhandledError';

/**
 * Options of {@link lastValue}.
 *
 * @example
 * ```ts
 * import { lastValue, type LastValueOptions } from '@rxagents/core';
 * import { of } from 'rxjs';
 *
 * const options: LastValueOptions = { signal: AbortSignal.timeout(5_000) };
 * console.log(await lastValue(of(1, 2, 3), options)); // 3
 * ```
 */
export interface LastValueOptions {
  /** Aborting it unsubscribes from the source and rejects with the signal's reason. */
  readonly signal?: AbortSignal;
}

/**
 * Subscribes to an Observable and resolves with its last value: the Promise edge of an Observable API.
 *
 * @remarks
 * Like RxJS's `lastValueFrom`, plus cancellation: when `signal` aborts (or is already aborted), the
 * subscription is closed, so all work under it stops, and the Promise rejects with `signal.reason`.
 * An Observable that completes without a value rejects with RxJS's `EmptyError`. Every `execute()`
 * in rxagents is built on it. If a teardown throws while an abort unsubscribes, the Promise still
 * rejects with the signal's reason and the teardown's error goes to {@link reportUnhandledError}. Options
 * that are not an object, or a `signal` that is not an `AbortSignal`, reject with a `ConfigError` without
 * subscribing.
 *
 * @example
 * ```ts
 * import { lastValue } from '@rxagents/core';
 * import { timer } from 'rxjs';
 *
 * const controller = new AbortController();
 * const pending = lastValue(timer(60_000), { signal: controller.signal });
 * controller.abort();
 * await pending.catch((reason) => console.log('cancelled:', reason));
 * ```
 */
export function lastValue<T>(source: Observable<T>, options: LastValueOptions = {}): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    if (typeof (source as Partial<Observable<T>> | null)?.subscribe !== 'function') {
      throw new ConfigError('lastValue', [{ path: 'source', rule: 'must be an Observable', received: source }]);
    }
    if (typeof options !== 'object' || options === null) {
      throw new ConfigError('lastValue options', [{ path: '', rule: 'must be an object', received: options }]);
    }
    const { signal } = options;
    checkSignal(signal, 'lastValue options');
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    let hasValue = false;
    let last: T | undefined;
    let stopWaiting = (): void => undefined;
    const onAbort = (): void => {
      reject(signal?.reason);
      // A teardown that throws must not escape into the signal's dispatch (an uncaught exception).
      try {
        subscription.unsubscribe();
      } catch (error) {
        reportUnhandledError(error);
      }
    };
    const subscription = source.subscribe({
      next: (value) => {
        hasValue = true;
        last = value;
      },
      error: (error: unknown) => {
        stopWaiting();
        reject(error);
      },
      complete: () => {
        stopWaiting();
        if (hasValue) resolve(last as T);
        else reject(new EmptyError());
      },
    });
    if (subscription.closed || signal === undefined) return;
    // The source may have aborted the signal while it was being subscribed: no 'abort' event will come.
    if (signal.aborted) onAbort();
    else stopWaiting = waitForAbort(signal, onAbort);
  });
}
