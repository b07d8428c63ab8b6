import { CoordinationError } from './CoordinationError';

/**
 * A run store could not do what it was asked (a full disk, a server that does not answer, a journal it
 * cannot read).
 *
 * @remarks
 * `operation` names what failed (`append`, `read`, ...) and `cause` keeps the underlying error. A failed
 * `append` left none of its records in the journal. Retryable when the cause may pass (an unreachable
 * server, a full disk); the store that raises it says so.
 *
 * @example
 * ```ts
 * import { RunStoreError } from '@rxagents/core';
 *
 * const error = new RunStoreError('append', 'r1', new Error('ENOSPC: no space left on device'), true);
 * console.log(error.message); // Run store append failed for run "r1": ENOSPC: no space left on device
 * ```
 */
export class RunStoreError extends CoordinationError {
  /** What the store was asked to do. */
  readonly operation: string;
  /** The run it was for, when there was one. */
  readonly runId: string | undefined;

  constructor(operation: string, runId: string | undefined, cause: unknown, retryable = false) {
    const what = runId === undefined ? '' : ` for run "${runId}"`;
    super('RUN_STORE_FAILED', `Run store ${operation} failed${what}: ${cause instanceof Error ? cause.message : String(cause)}`, {
      retryable,
      cause,
      context: runId === undefined ? { operation } : { operation, runId },
    });
    this.operation = operation;
    this.runId = runId;
  }
}
