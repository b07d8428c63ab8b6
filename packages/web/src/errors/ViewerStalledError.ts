import { CoordinationError } from '@rxagents/core';

/**
 * A viewer of an event stream stopped reading: it asked for nothing for `stallTimeoutMs` while events
 * waited for it, so it was cut off. Sent to the viewer as an `event: error` frame with code
 * `VIEWER_STALLED` before its stream closes; the source is cancelled (a run started for that one request
 * is aborted, a registry run goes on). Retryable: a viewer that reads again may reconnect with
 * `Last-Event-ID` to a registry run.
 *
 * @example
 * ```ts
 * import { ViewerStalledError } from '@rxagents/web';
 *
 * const error = new ViewerStalledError(30_000);
 * console.log(error.code, error.retryable); // VIEWER_STALLED true
 * ```
 */
export class ViewerStalledError extends CoordinationError {
  constructor(
    /** The `stallTimeoutMs` the viewer went past. */
    readonly stallTimeoutMs: number,
  ) {
    super('VIEWER_STALLED', `The viewer read nothing for ${stallTimeoutMs} ms while events waited for it (stallTimeoutMs)`, {
      retryable: true,
      context: { stallTimeoutMs },
    });
  }
}
