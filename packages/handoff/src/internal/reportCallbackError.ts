import { config } from 'rxjs';

/**
 * Reports an error thrown by a callback or listener, which never changes a handoff's outcome: to RxJS's
 * `config.onUnhandledError` when the application set one, so it can be logged; otherwise it is ignored
 * (a listener is an observer, and the handoff it watches goes on).
 */
export function reportCallbackError(error: unknown): void {
  const report = config.onUnhandledError;
  if (report === null || report === undefined) return;
  try {
    report(error);
  } catch {
    // A reporter that throws has nowhere left to report to.
  }
}
