import { CoordinationError } from './CoordinationError';

/**
 * A lease on a run is no longer the run's: another process took it (after it lapsed, or under the same
 * owner), or it was released, or the run was deleted.
 *
 * @remarks
 * Raised by a run store when the holder renews, or appends under, a lease it lost. A lease that merely
 * lapsed is not lost: until another process takes it, its holder's late renewal or append succeeds. A
 * runner that gets it stops: another process may be running the run, and two writers must never mix one
 * journal. Not retryable with the same lease.
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
    super('RUN_LEASE_LOST', `The lease on run "${runId}" was lost: another process took it, or it was released, and another process may be running the run`, {
      context: { runId },
    });
    this.runId = runId;
  }
}
