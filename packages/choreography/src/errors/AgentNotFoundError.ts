import { CoordinationError } from '@rxagents/core';

/**
 * An interaction's target agent is not registered with the engine.
 *
 * @remarks
 * {@link ChoreographyEngine} does not throw it: the interaction fails, and its {@link StepResult}
 * carries the message `Agent not found: <id>`. Not retryable: the same engine fails the same way.
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
