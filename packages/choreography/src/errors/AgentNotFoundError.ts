import { CoordinationError } from '@rxagents/core';

/**
 * An interaction's target agent is not registered with the engine.
 *
 * @remarks
 * {@link ChoreographyEngine} never produces it: an engine whose spec names a target with no
 * registered agent is refused when it is built, with a `ConfigError` naming the interaction and the
 * id. It stays exported for code that looks agents up by id itself. Not retryable.
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
