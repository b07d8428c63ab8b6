import { CoordinationError } from '@rxagents/core';

/**
 * A handoff's target did not finish within its `timeout`.
 *
 * @remarks
 * Raised by {@link Handoff.execute}; the target's `AbortSignal` is aborted. Always retryable
 * (`isRetryable === true`): a second attempt may succeed.
 *
 * @example
 * ```ts
 * import { HandoffTimeoutError } from '@rxagents/handoff';
 *
 * const error = new HandoffTimeoutError('billing', 30_000);
 * console.log(error.isRetryable, error.timeoutMs, error.timeoutSeconds); // true 30000 30
 * ```
 */
export class HandoffTimeoutError extends CoordinationError {
  /** The target that timed out. */
  readonly agentId: string;
  /** The limit that passed, in ms. */
  readonly timeoutMs: number;

  constructor(agentId: string, timeoutMs: number, cause?: unknown) {
    super('HANDOFF_TIMEOUT', `Handoff to "${agentId}" timed out after ${timeoutMs} ms`, {
      retryable: true,
      context: { agentId, timeout_ms: timeoutMs, timeout_seconds: timeoutMs / 1000 },
      cause,
    });
    this.agentId = agentId;
    this.timeoutMs = timeoutMs;
  }

  /** The limit that passed, in seconds (`timeoutMs / 1000`). */
  get timeoutSeconds(): number {
    return this.timeoutMs / 1000;
  }
}
