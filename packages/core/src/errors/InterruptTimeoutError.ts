import { CoordinationError } from './CoordinationError';

/**
 * Nobody answered an interrupt within its `timeout`.
 *
 * @remarks
 * The asker gets it as the interrupt's error (an approval asked with `onTimeout: 'refuse'` gets a
 * refusal instead), and the interrupt closes: a later answer gets `InterruptNotFoundError`.
 *
 * @example
 * ```ts
 * import { InterruptTimeoutError } from '@rxagents/core';
 *
 * const error = new InterruptTimeoutError('run-1', 'ab12', 60_000);
 * console.log(error.code, error.message); // INTERRUPT_TIMEOUT Interrupt "ab12" of run "run-1" was not answered within 60000 ms
 * ```
 */
export class InterruptTimeoutError extends CoordinationError {
  /** The run of the interrupt. */
  readonly runId: string;
  /** The interrupt that timed out. */
  readonly interruptId: string;
  /** The timeout, in ms. */
  readonly timeoutMs: number;

  constructor(runId: string, interruptId: string, timeoutMs: number) {
    super('INTERRUPT_TIMEOUT', `Interrupt "${interruptId}" of run "${runId}" was not answered within ${timeoutMs} ms`, { context: { runId, interruptId, timeoutMs } });
    this.runId = runId;
    this.interruptId = interruptId;
    this.timeoutMs = timeoutMs;
  }
}
