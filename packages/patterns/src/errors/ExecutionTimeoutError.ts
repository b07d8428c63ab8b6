import { CoordinationError } from '@rxagents/core';

/**
 * A pattern run's overall `timeout` passed before an agent answered.
 *
 * @remarks
 * Recorded as the failed {@link AgentResult} of every agent still working (or not yet started) when the
 * run's time is up; in a conversation it ends the run with status `failed`. Retryable: a second run may
 * be faster. (A single agent exceeding `agentTimeout` is core's `AgentTimeoutError` instead.)
 *
 * @example
 * ```ts
 * import { ExecutionTimeoutError } from '@rxagents/patterns';
 *
 * const error = new ExecutionTimeoutError('voting', 5_000, 'judge-2');
 * console.log(error.code, error.retryable); // EXECUTION_TIMEOUT true
 * ```
 */
export class ExecutionTimeoutError extends CoordinationError {
  /** The pattern whose time ran out. */
  readonly pattern: string;
  /** The agent that had not answered; `undefined` when the time ran out between agents (say, in a judge). */
  readonly agentId: string | undefined;
  /** The overall limit, in milliseconds. */
  readonly timeoutMs: number;

  constructor(pattern: string, timeoutMs: number, agentId?: string) {
    super(
      'EXECUTION_TIMEOUT',
      `Pattern "${pattern}" timed out after ${timeoutMs} ms${agentId === undefined ? '' : ` before agent "${agentId}" answered`}`,
      { retryable: true, context: { pattern, timeoutMs, ...(agentId === undefined ? {} : { agentId }) } },
    );
    this.pattern = pattern;
    this.agentId = agentId;
    this.timeoutMs = timeoutMs;
  }
}
