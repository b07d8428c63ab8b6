import { CoordinationError } from './CoordinationError';

/**
 * Another process holds the run's lease: it is running the run now.
 *
 * @remarks
 * A run store gives a run's lease to one holder at a time, so two processes that resume the same run
 * at once cannot both run it: the second is refused with this error. Retryable: once the holder
 * releases the lease, or stops renewing it and it expires, the run can be taken.
 *
 * @example
 * ```ts
 * import { RunLeasedError } from '@rxagents/core';
 *
 * const error = new RunLeasedError('r1', 30_000);
 * console.log(error.code, error.retryable); // RUN_LEASED true
 * ```
 */
export class RunLeasedError extends CoordinationError {
  /** The run that is leased. */
  readonly runId: string;
  /** When the current lease lapses unless renewed, in ms on the store's clock. */
  readonly expiresAt: number;

  constructor(runId: string, expiresAt: number) {
    super('RUN_LEASED', `Run "${runId}" is being run by another process (its lease lasts until ${expiresAt})`, {
      retryable: true,
      context: { runId, expiresAt },
    });
    this.runId = runId;
    this.expiresAt = expiresAt;
  }
}
