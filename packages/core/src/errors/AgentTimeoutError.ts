import { CoordinationError } from './CoordinationError';

/**
 * An agent did not finish its reply within the allowed time.
 *
 * @remarks
 * Raised by {@link stream}, {@link invoke$} and {@link invoke} when their `timeout` passes on the scheduler. The agent's
 * `AbortSignal` is aborted with this error as its reason. Always retryable: a second attempt may be faster.
 *
 * @example
 * ```ts
 * import { AgentTimeoutError } from '@rxagents/core';
 *
 * const error = new AgentTimeoutError('writer', 30_000);
 * console.log(error.retryable, error.timeoutMs); // true 30000
 * ```
 */
export class AgentTimeoutError extends CoordinationError {
  /** The id of the agent that timed out. */
  readonly agentId: string;
  /** The time limit that passed, in milliseconds. */
  readonly timeoutMs: number;

  constructor(agentId: string, timeoutMs: number) {
    super('AGENT_TIMEOUT', `Agent "${agentId}" did not answer within ${timeoutMs} ms`, {
      retryable: true,
      context: { agentId, timeoutMs },
    });
    this.agentId = agentId;
    this.timeoutMs = timeoutMs;
  }
}
