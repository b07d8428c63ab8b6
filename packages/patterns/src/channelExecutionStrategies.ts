import { parseConfig } from '@rxagents/core';
import { type BarrierStrategy, type CollectOptions, CollectOptionsSchema, type ConversationStrategy, ConversationStrategySchema, type FanInStrategy } from './ChannelExecutionStrategy';

// Builds ChannelExecutionStrategy values; exported from the package as the module namespace `ChannelExecutionStrategy`.

/**
 * A conversation strategy; settings are validated.
 *
 * @example
 * ```ts
 * import { ChannelExecutionStrategy, TerminationCondition, TurnPolicy } from '@rxagents/patterns';
 *
 * const strategy = ChannelExecutionStrategy.conversation({
 *   turnPolicy: TurnPolicy.addressed(),
 *   termination: TerminationCondition.maxMessages(12),
 *   project: (state) => state.messages.length,
 * });
 * ```
 */
export function conversation<T>(settings: Omit<ConversationStrategy<T>, 'kind'>): ConversationStrategy<T> {
  parseConfig(ConversationStrategySchema, settings, 'Conversation strategy');
  return Object.freeze({ kind: 'conversation', ...settings });
}

/**
 * A fan-in strategy; options are validated.
 *
 * @example
 * ```ts
 * import { ChannelExecutionStrategy } from '@rxagents/patterns';
 *
 * const strategy = ChannelExecutionStrategy.fanIn({ agentTimeout: 5_000 });
 * ```
 */
export function fanIn(options: CollectOptions = {}): FanInStrategy {
  return Object.freeze({ kind: 'fanIn', ...parseConfig(CollectOptionsSchema, options, 'FanIn options') });
}

/**
 * A barrier strategy; options are validated.
 *
 * @example
 * ```ts
 * import { ChannelExecutionStrategy } from '@rxagents/patterns';
 *
 * const strategy = ChannelExecutionStrategy.barrier({ timeout: 20_000 });
 * ```
 */
export function barrier(options: CollectOptions = {}): BarrierStrategy {
  return Object.freeze({ kind: 'barrier', ...parseConfig(CollectOptionsSchema, options, 'Barrier options') });
}
