import { CoordinationError } from '@rxagents/core';

/**
 * An answer named an interrupt of a durable run that another process is running now (it holds the run's
 * lease): this registry cannot take the answer. `409` over HTTP.
 *
 * @remarks
 * A durable run is run by one process at a time, and an interrupt is open in the process that runs it.
 * Send the answer to that process, or again once its lease lapsed (the process stopped): then this
 * registry resumes the run and takes the answer. Retryable. The message names no id (it may be sent to a
 * browser).
 *
 * @example
 * ```ts
 * import { RunHeldElsewhereError } from '@rxagents/web';
 *
 * const error = new RunHeldElsewhereError('6b1d4a43-8f1e-4c55-9d0a-3c2f6f1e9a10');
 * console.log(error.code, error.retryable); // RUN_HELD_ELSEWHERE true
 * ```
 */
export class RunHeldElsewhereError extends CoordinationError {
  constructor(
    /** The run answered. */
    readonly runId: string,
  ) {
    super('RUN_HELD_ELSEWHERE', 'Another process is running this run: answer it there, or once that process stopped', { retryable: true, context: { runId } });
  }
}
