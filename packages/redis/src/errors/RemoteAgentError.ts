import { CoordinationError, type SerializedError } from '@rxagents/core';

/**
 * A remote agent failed on its worker: the worker's error, carried across Redis.
 *
 * @remarks
 * The original error cannot cross processes, so its name, message, code and retryable flag arrive as
 * {@link SerializedError} in `remote`; `retryable` is the remote error's. Called through `stream` or
 * `invoke`, it arrives wrapped in an `AgentError` naming the agent, as any agent failure does.
 *
 * @example
 * ```ts
 * import { RemoteAgentError } from '@rxagents/redis';
 *
 * const error = new RemoteAgentError('writer', { name: 'AgentError', message: 'rate limited', code: 'AGENT_ERROR', retryable: true });
 * console.log(error.retryable, error.remote.message); // true rate limited
 * ```
 */
export class RemoteAgentError extends CoordinationError {
  /** The remote agent's id. */
  readonly agentId: string;
  /** The error as the worker reported it. */
  readonly remote: SerializedError;

  constructor(agentId: string, remote: SerializedError) {
    super('REMOTE_AGENT_ERROR', `Remote agent "${agentId}" failed: ${remote.message}`, {
      retryable: remote.retryable ?? false,
      context: { agentId, remote },
    });
    this.agentId = agentId;
    this.remote = remote;
  }
}
