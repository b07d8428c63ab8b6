import { CoordinationError } from './CoordinationError';

/**
 * A lease on a run is no longer the run's: it expired and another process took the run, or it was
 * released.
 *
 * @remarks
 * Raised by a run store when the holder renews, or appends under, a lease it lost. A runner that gets
 * it stops: another process may be running the run, and two writers must never mix one journal. Not
 * retryable with the same lease.
 *
 * @example
 * ```ts
 * import { RunLeaseLostError } from '@rxagents/core';
 *
 * const error = new RunLeaseLostError('r1');
 * console.log(error.code); // RUN_LEASE_LOST
 * ```
 */
export class RunLeaseLostError extends CoordinationError {
  /** The run whose lease was lost. */
  readonly runId: string;

  constructor(runId: string) {
    super('RUN_LEASE_LOST', `The lease on run "${runId}" was lost: it expired or was released, and another process may be running the run`, {
      context: { runId },
    });
    this.runId = runId;
  }
}
