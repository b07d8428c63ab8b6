import { config } from 'rxjs';

/**
 * Reports an error that has nowhere else to go, the way RxJS does.
 *
 * @remarks
 * Errors thrown by user code where nobody is listening (a teardown that throws while a run is being
 * cancelled, a subscriber's own `error` callback) are passed to RxJS's `config.onUnhandledError` when it
 * is set, and otherwise rethrown on a microtask, so they are never silently lost and never unwind the
 * toolkit's own stack half-way. A reporter that throws has its own error rethrown on a microtask.
 *
 * @param error - The error to report.
 *
 * @example
 * ```ts
 * import { config } from 'rxjs';
 * import { reportUnhandledError } from '@rxagents/core';
 *
 * config.onUnhandledError = (error) => console.error('unhandled:', error);
 * reportUnhandledError(new Error('a teardown failed')); // unhandled: Error: a teardown failed
 * ```
 */
export function reportUnhandledError(error: unknown): void {
  const report = config.onUnhandledError;
  if (report !== null && report !== undefined) {
    try {
      report(error);
    } catch (reportError) {
      rethrowLater(reportError);
    }
  } else rethrowLater(error);
}

function rethrowLater(error: unknown): void {
  queueMicrotask(() => {
    throw error;
  });
}
