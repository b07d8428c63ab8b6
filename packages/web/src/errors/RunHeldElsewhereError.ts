import { CoordinationError } from '@rxagents/core';

/**
 * An answer named an interrupt of a durable run that another process is running now (it holds the run's
 * lease): this registry cannot take the answer. `409` over HTTP.
 *
 * @remarks
 * A durable run is run by one process at a time, and an interrupt is open in the process that runs it.
 * Send the answer to that process, or again once its lease lapsed (the process stopped): then this
 * registry resumes the run and takes the answer. Retryable: `retryAfterMs` says when the lease lapses,
 * when the store said (the route sends it as `Retry-After`). The message names no id and no host (it may
 * be sent to a browser); the server's `RunLeasedError` names the holder.
 *
 * @example
 * ```ts
 * import { RunHeldElsewhereError } from '@rxagents/web';
 *
 * const error = new RunHeldElsewhereError('6b1d4a43-8f1e-4c55-9d0a-3c2f6f1e9a10', 27_000);
 * console.log(error.code, error.retryable, error.retryAfterMs); // RUN_HELD_ELSEWHERE true 27000
 * console.log(error.message); // Another process is running this run: answer it there, or once that process stopped (its lease lapses in 27 s)
 * ```
 */
export class RunHeldElsewhereError extends CoordinationError {
  constructor(
    /** The run answered. */
    readonly runId: string,
    /** When the holder's lease lapses, in ms from now, when the store said. */
    readonly retryAfterMs?: number,
  ) {
    const lapse = retryAfterMs === undefined ? '' : ` (its lease lapses in ${Math.ceil(retryAfterMs / 1_000)} s)`;
    super('RUN_HELD_ELSEWHERE', `Another process is running this run: answer it there, or once that process stopped${lapse}`, {
      retryable: true,
      context: { runId, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) },
    });
  }
}
