import { CoordinationError } from '@rxagents/core';

/**
 * A composed pattern, called as an agent, ended with status `failed`.
 *
 * @remarks
 * A `ComposedAgent` replies with its pattern's output; when the pattern fails there is no output, so its
 * `chat` errors with this error (which `stream` wraps in an `AgentError` naming the composed agent). The
 * failing result's `reason` is in the message; its error is the `cause`. Retryable when that cause is.
 *
 * @example
 * ```ts
 * import { PatternFailedError } from '@rxagents/patterns';
 *
 * const error = new PatternFailedError('debate', 'agent skeptic failed');
 * console.log(error.message); // Pattern "debate" failed: agent skeptic failed
 * ```
 */
export class PatternFailedError extends CoordinationError {
  /** The pattern that failed. */
  readonly pattern: string;

  constructor(pattern: string, reason: string, cause?: unknown) {
    super('PATTERN_FAILED', `Pattern "${pattern}" failed: ${reason}`, {
      retryable: cause instanceof CoordinationError && cause.retryable,
      context: { pattern, reason },
      ...(cause === undefined ? {} : { cause }),
    });
    this.pattern = pattern;
  }
}
