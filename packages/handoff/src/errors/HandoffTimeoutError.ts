import { CoordinationError } from '@rxagents/core';

/**
 * A handoff's target did not finish within `timeoutSeconds`.
 *
 * @remarks
 * Raised by {@link Handoff.execute}; the target's `AbortSignal` is aborted. Always retryable
 * (`isRetryable === true`): a second attempt may succeed.
 *
 * @example
 * ```ts
 * import { HandoffTimeoutError } from '@rxagents/handoff';
 *
 * const error = new HandoffTimeoutError('billing', 30);
 * console.log(error.isRetryable, error.timeoutSeconds); // true 30
 * ```
 */
export class HandoffTimeoutError extends CoordinationError {
  /** The target that timed out. */
  readonly agentId: string;
  /** The limit that passed, in seconds. */
  readonly timeoutSeconds: number;

  constructor(agentId: string, timeoutSeconds: number, cause?: unknown) {
    super('HANDOFF_TIMEOUT', `Handoff to "${agentId}" timed out after ${timeoutSeconds} s`, {
      retryable: true,
      context: { agentId, timeout_seconds: timeoutSeconds },
      cause,
    });
    this.agentId = agentId;
    this.timeoutSeconds = timeoutSeconds;
  }
}
