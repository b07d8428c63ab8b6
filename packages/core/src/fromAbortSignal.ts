import { Observable } from 'rxjs';
import { isAbortSignal } from './configRules';
import { ConfigError } from './errors/ConfigError';
import { onAbort as waitForAbort } from './internal/abortListeners';

/**
 * An Observable of an `AbortSignal`'s abort: it emits the signal's `reason` once and completes, at once
 * when the signal has already aborted; it never emits for a signal that never aborts.
 *
 * @remarks
 * The one place where rxagents listens to an `AbortSignal`: the wait starts on subscription and ends
 * on unsubscription (and after the abort), so nothing leaks from a long-lived signal shared by many runs.
 * However many subscriptions wait on one signal, it carries a single `'abort'` listener, so a thousand
 * queued calls sharing a signal raise no `MaxListenersExceededWarning`. Turn an abort into cancellation with `takeUntil(fromAbortSignal(signal))`, or into an
 * error with `mergeMap((reason) => throwError(() => reason))`.
 *
 * @param signal - The signal to watch.
 * @returns An Observable that emits the abort reason, then completes.
 *
 * @example
 * ```ts
 * import { interval, takeUntil } from 'rxjs';
 * import { fromAbortSignal } from '@rxagents/core';
 *
 * const controller = new AbortController();
 * interval(10).pipe(takeUntil(fromAbortSignal(controller.signal))).subscribe({ complete: () => console.log('stopped') });
 * fromAbortSignal(controller.signal).subscribe((reason) => console.log('aborted:', String(reason))); // aborted: done
 * controller.abort('done'); // then: stopped
 * ```
 */
export function fromAbortSignal(signal: AbortSignal): Observable<unknown> {
  if (!isAbortSignal(signal)) throw new ConfigError('fromAbortSignal', [{ path: 'signal', rule: 'must be an AbortSignal', received: signal }]);
  return new Observable<unknown>((subscriber) => {
    const onAbort = (): void => {
      subscriber.next(signal.reason);
      subscriber.complete();
    };
    if (signal.aborted) {
      onAbort();
      return undefined;
    }
    return waitForAbort(signal, onAbort);
  });
}
