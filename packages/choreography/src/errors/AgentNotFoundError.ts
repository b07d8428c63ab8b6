import { CoordinationError } from '@rxagents/core';

/**
 * An interaction's target agent is not registered with the engine.
 *
 * @remarks
 * Not used by {@link ChoreographyEngine}: building an engine refuses a target with no agent (one
 * that is not in `agents` nor in `remoteAgents`) with a `ConfigError`, so no step can fail this way.
 * Kept for code that looks agents up by id itself, for example a bus adapter that routes work to
 * agents in other processes. Not retryable.
 *
 * @example
 * ```ts
 * import { AgentNotFoundError } from '@rxagents/choreography';
 *
 * const error = new AgentNotFoundError('writer');
 * console.log(error.message); // Agent not found: writer
 * ```
 */
export class AgentNotFoundError extends CoordinationError {
  /** The id no agent was registered under. */
  readonly agentId: string;

  constructor(agentId: string) {
    super('AGENT_NOT_FOUND', `Agent not found: ${agentId}`, { retryable: false, context: { agentId } });
    this.agentId = agentId;
  }
}
