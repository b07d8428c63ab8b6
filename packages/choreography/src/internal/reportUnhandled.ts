import { config } from 'rxjs';

/**
 * Reports an error that has nowhere to go the way RxJS does: to `config.onUnhandledError` when set,
 * otherwise rethrown asynchronously (on a microtask), so it is never silently lost.
 *
 * @internal
 */
export function reportUnhandled(error: unknown): void {
  const report = config.onUnhandledError;
  if (report !== null && report !== undefined) report(error);
  else
    queueMicrotask(() => {
      throw error;
    });
}
