import { type Agent, parseConfig } from '@rxagents/core';
import { agentRule } from './agentList';
import { ComposedAgent, type ComposedAgentOptions } from './ComposedAgent';
import type { ExecutionModel } from './ExecutionModel';

/**
 * A participant of a pattern: any {@link Agent}, or a {@link ComposedAgent} (a whole pattern as one agent).
 *
 * @remarks
 * In the Java coordination library these APIs follow, `AgentRef` is a sealed type with a composed
 * variant; here both variants share the `Agent` contract, so the driver, the channel strategies and a
 * supervisor call every participant the same way, through core's `reply` (which wires cancellation and
 * timeouts). {@link AgentRef.isComposed} tells them apart when a caller wants the sub-task's live
 * snapshots.
 *
 * @example
 * ```ts
 * import { defineAgent } from '@rxagents/core';
 * import { AgentRef, Patterns } from '@rxagents/patterns';
 *
 * const analyst = defineAgent('analyst', async () => 'Revenue is up.');
 * const vote = Patterns.voting({ agents: [analyst] }).build();
 * const refs: AgentRef[] = [AgentRef.of(analyst), AgentRef.composed('vote', vote)];
 * console.log(refs.map((ref) => AgentRef.isComposed(ref))); // [ false, true ]
 * ```
 */
export type AgentRef = Agent;

/** Builds and inspects {@link AgentRef}s. */
export const AgentRef = {
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
  of(agent: Agent): AgentRef {
    return parseConfig(agentRule(), agent, 'AgentRef.of');
  },

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
  composed<T>(id: string, model: ExecutionModel<T>, options?: ComposedAgentOptions<T>): ComposedAgent<T> {
    return new ComposedAgent(id, model, options);
  },

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
  isComposed(ref: AgentRef): ref is ComposedAgent<unknown> {
    return ref instanceof ComposedAgent;
  },
} as const;
