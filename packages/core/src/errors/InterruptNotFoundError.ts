import { CoordinationError } from './CoordinationError';

/**
 * An answer named an interrupt that is not open in that run here: unknown, already answered or closed,
 * or another run's.
 *
 * @remarks
 * Each case gets this same error, so an answer learns nothing about interrupts it does not hold. An
 * interrupt of a durable run whose process stopped is open again once the run is resumed (a run
 * registry with a store resumes it for the answer).
 *
 * @example
 * ```ts
 * import { InterruptNotFoundError } from '@rxagents/core';
 *
 * const error = new InterruptNotFoundError('run-1', '4f0c0a4e-0d7a-4c53-9b35-5a2b8d1c6e70');
 * console.log(error.code); // INTERRUPT_NOT_FOUND
 * ```
 */
export class InterruptNotFoundError extends CoordinationError {
  /** The run the answer named. */
  readonly runId: string;
  /** The interrupt the answer named. */
  readonly interruptId: string;

  constructor(runId: string, interruptId: string) {
    super('INTERRUPT_NOT_FOUND', `No open interrupt "${interruptId}" in run "${runId}"`, { context: { runId, interruptId } });
    this.runId = runId;
    this.interruptId = interruptId;
  }
}
