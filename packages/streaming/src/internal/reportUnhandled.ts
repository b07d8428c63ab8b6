import { config } from 'rxjs';

/**
 * Reports an error that has nowhere to go the way RxJS does: to `config.onUnhandledError` when set,
 * otherwise rethrown asynchronously (on a microtask), so it is never silently lost. A reporter that throws
 * has its own error rethrown asynchronously: nothing escapes into the dispatcher.
 *
 * @internal
 */
export function reportUnhandled(error: unknown): void {
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
