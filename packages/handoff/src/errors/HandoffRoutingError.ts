import { CoordinationError } from '@rxagents/core';

/**
 * No receiver could be chosen for a task.
 *
 * @remarks
 * The `error` of a {@link ConditionalHandoff} failure when no predicate matched and there is no
 * `otherwise` agent (its `toAgentId` is `'none'`), and what a {@link routingAgent} fails with when no
 * handoff condition matched and it has no model to ask. Not retryable.
 *
 * @example
 * ```ts
 * import { HandoffRoutingError } from '@rxagents/handoff';
 *
 * const error = new HandoffRoutingError('assistant', 'no predicate matched and no otherwise agent is set');
 * console.log(error.code); // HANDOFF_NO_ROUTE
 * ```
 */
export class HandoffRoutingError extends CoordinationError {
  /** The agent that had to route. */
  readonly fromAgentId: string;

  constructor(fromAgentId: string, reason: string) {
    super('HANDOFF_NO_ROUTE', `No handoff route from "${fromAgentId}": ${reason}`, {
      retryable: false,
      context: { fromAgentId },
    });
    this.fromAgentId = fromAgentId;
  }
}
