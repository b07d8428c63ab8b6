import { CoordinationError } from '@rxagents/core';

/**
 * A choreography's timeout passed while an interaction was still running.
 *
 * @remarks
 * When the engine's `timeout` passes, running agents are aborted (their `AbortSignal` fires, as on
 * any unsubscription) and each of their interactions gets a failed {@link StepResult} whose `error` is
 * this error (the instance, so `step.error instanceof ChoreographyTimeoutError` holds). Interactions that never started are listed in `ChoreographyResult.pending` instead.
 *
 * @example
 * ```ts
 * import { ChoreographyTimeoutError } from '@rxagents/choreography';
 *
 * const error = new ChoreographyTimeoutError('article', 300_000);
 * console.log(error.message); // Choreography "article" timed out after 300000 ms
 * ```
 */
export class ChoreographyTimeoutError extends CoordinationError {
  /** The name of the spec that timed out. */
  readonly specName: string;
  /** The timeout that passed, in milliseconds. */
  readonly timeoutMs: number;

  constructor(specName: string, timeoutMs: number) {
    super('CHOREOGRAPHY_TIMEOUT', `Choreography "${specName}" timed out after ${timeoutMs} ms`, {
      retryable: true,
      context: { specName, timeoutMs },
    });
    this.specName = specName;
    this.timeoutMs = timeoutMs;
  }
}
