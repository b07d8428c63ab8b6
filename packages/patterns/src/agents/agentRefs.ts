import { type Agent, parseConfig } from '@rxagents/core';
import { agentRule } from './agentList';
import type { AgentRef } from './AgentRef';
import { ComposedAgent, type ComposedAgentOptions } from './ComposedAgent';
import type { ExecutionModel } from '../execution/ExecutionModel';

// Builds and inspects AgentRefs; exported from the package as the module namespace `AgentRef`.

/**
 * A plain agent as a participant.
 *
 * @example
 * ```ts
 * import { defineAgent } from '@rxagents/core';
 * import { AgentRef } from '@rxagents/patterns';
 *
 * const ref = AgentRef.of(defineAgent('writer', async () => 'draft'));
 * ```
 */
export function of(agent: Agent): AgentRef {
  return parseConfig(agentRule(), agent, 'AgentRef.of');
}

/**
 * A pattern as a participant: `new ComposedAgent(id, model, options)`.
 *
 * @example
 * ```ts
 * import { defineAgent } from '@rxagents/core';
 * import { AgentRef, Patterns } from '@rxagents/patterns';
 *
 * const a = defineAgent('a', async () => 'yes');
 * const subTask = AgentRef.composed('mini-vote', Patterns.voting({ agents: [a] }).build());
 * ```
 */
export function composed<T>(id: string, model: ExecutionModel<T>, options?: ComposedAgentOptions<T>): ComposedAgent<T> {
  return new ComposedAgent(id, model, options);
}

/**
 * Whether `ref` is a {@link ComposedAgent}.
 *
 * @example
 * ```ts
 * import { defineAgent } from '@rxagents/core';
 * import { AgentRef } from '@rxagents/patterns';
 *
 * console.log(AgentRef.isComposed(defineAgent('x', async () => ''))); // false
 * ```
 */
export function isComposed(ref: AgentRef): ref is ComposedAgent<unknown> {
  return ref instanceof ComposedAgent;
}
