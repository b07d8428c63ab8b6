import type { Agent } from '@rxagents/core';
import type { HandoffPredicate } from './HandoffPredicate';

/**
 * One step of a `HandoffChain`: an agent, and the predicate that decides whether it runs.
 *
 * @example
 * ```ts
 * import { defineAgent } from '@rxagents/core';
 * import type { HandoffChainStep } from '@rxagents/handoff';
 *
 * const step: HandoffChainStep = { agent: defineAgent('translator', async () => '...'), predicate: (context) => context.metadata.language === 'de' };
 * ```
 */
export interface HandoffChainStep {
  readonly agent: Agent;
  readonly predicate?: HandoffPredicate;
}
