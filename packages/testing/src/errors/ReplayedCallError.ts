import { AgentError, type SerializedError } from '@rxagents/core';

/**
 * The failure of a recorded call, rebuilt by its replay agent: the recorded `name`, `message`, `code`
 * and `retryable`.
 *
 * @remarks
 * A journal keeps an error as a {@link @rxagents/core!SerializedError | SerializedError} (no class, no
 * stack, no cause), so the replay cannot give back the original class: a recorded `AgentTimeoutError`
 * comes back as a `ReplayedCallError` whose `name` is `AgentTimeoutError` and whose `code` is
 * `AGENT_TIMEOUT`. Check `code`, not the class. It is an `AgentError` of the replayed agent, so `stream`
 * passes it on unchanged and the replayed run's `call-error` event says exactly what the recorded one
 * said. A recorded error without a `code` gets `AGENT_ERROR`, one without `retryable` is not retryable.
 *
 * @example
 * ```ts
 * import { ReplayedCallError } from '@rxagents/testing';
 *
 * const error = new ReplayedCallError('writer', { name: 'AgentTimeoutError', message: 'Agent "writer" did not answer within 5000 ms', code: 'AGENT_TIMEOUT', retryable: true });
 * console.log(error.name, error.code, error.retryable, error.agentId); // AgentTimeoutError AGENT_TIMEOUT true writer
 * ```
 */
export class ReplayedCallError extends AgentError {
  constructor(
    agentId: string,
    /** The error as the journal records it. */
    readonly recorded: SerializedError,
  ) {
    super(agentId, undefined, { retryable: recorded.retryable ?? false });
    this.name = recorded.name;
    this.message = recorded.message;
    // `code` is set once by CoordinationError; the recorded one replaces it so the error serializes as recorded.
    Object.defineProperty(this, 'code', { value: recorded.code ?? 'AGENT_ERROR', enumerable: true, configurable: true, writable: false });
  }
}
