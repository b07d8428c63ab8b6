import { parseOnce } from '../builders/validated';
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
  return parseOnce(ConversationStrategySchema, settings, 'Conversation strategy', () => ({ kind: 'conversation' as const, ...settings }));
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
  return parseOnce(CollectOptionsSchema, options, 'FanIn options', (limits) => ({ kind: 'fanIn' as const, ...limits }));
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
  return parseOnce(CollectOptionsSchema, options, 'Barrier options', (limits) => ({ kind: 'barrier' as const, ...limits }));
}
