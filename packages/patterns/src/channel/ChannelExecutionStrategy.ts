import { configRules } from '@rxagents/core';
import { z } from 'zod';
import type { ConversationMessage, ConversationState } from '../conversation/ConversationState';
import type { PostedReply } from '../conversation/PostedMessageSchema';
import type { ConversationPrompt } from '../conversation/conversationPrompt';
import type { TerminationCondition } from '../termination/TerminationCondition';
import type { TurnPolicy } from '../conversation/TurnPolicy';

/**
 * Runs a pattern as a conversation on the channel (see {@link ChannelExecutionStrategy}).
 *
 * @example
 * ```ts
 * import { ChannelExecutionStrategy, TerminationCondition, TurnPolicy, type ConversationStrategy } from '@rxagents/patterns';
 *
 * // Everybody answers each turn; the model's state is just the message count.
 * const brainstorm: ConversationStrategy<number> = ChannelExecutionStrategy.conversation({
 *   turnPolicy: TurnPolicy.freeForAll(),
 *   termination: TerminationCondition.maxMessages(9),
 *   project: (state) => state.messages.length,
 * });
 * console.log(brainstorm.kind, brainstorm.turnPolicy.name); // conversation free-for-all
 * ```
 */
export interface ConversationStrategy<T> {
  readonly kind: 'conversation';
  /** Who speaks next. */
  readonly turnPolicy: TurnPolicy;
  /** The conversation's own condition: it terminates on the projection, not on the model's `T`. */
  readonly termination: TerminationCondition<ConversationState>;
  /** Maps the projection to the model's state type (identity for a debate). */
  readonly project: (state: ConversationState) => T;
  /** What a speaker is asked. Default `conversationPrompt`. */
  readonly prompt?: ConversationPrompt;
  /** How many iterations a conversation state has completed, reported as `iterations`. Default: its completed rounds (`state.round`). */
  readonly iterations?: (state: ConversationState) => number;
  /**
   * A set each run adds its own replies to, as it folds them: the messages that answer a call the run
   * made, recognised by their `replyTo` (see {@link PostedReply}), not by their speaker. Added before
   * `project`, the turn policy, `prompt` or `termination` see the state that holds the message, so they
   * can tell the run's replies from whatever else is posted on the channel (another run relaying its
   * replies, a person, a second participant with the same id). One set may serve every run of the
   * strategy: each run folds messages of its own.
   */
  readonly ownReplies?: WeakSet<ConversationMessage>;
}

/**
 * How FanIn and Barrier dispatch: concurrency and timeouts (each falls back to the model's).
 *
 * @example
 * ```ts
 * import { ChannelExecutionStrategy, type CollectOptions } from '@rxagents/patterns';
 *
 * const limits: CollectOptions = { concurrency: 3, agentTimeout: 10_000, timeout: 45_000 };
 * const vote = ChannelExecutionStrategy.fanIn(limits);
 * const gate = ChannelExecutionStrategy.barrier(limits);
 * ```
 */
export interface CollectOptions {
  /** How many agents run at once. Default: all of them. */
  readonly concurrency?: number;
  /** Per-agent limit in ms: a late agent is recorded as a failed result (`AgentTimeoutError`); up to `MAX_DELAY_MS` (about 24.8 days), `Infinity` for none. */
  readonly agentTimeout?: number;
  /** Overall limit in ms: agents still working are recorded as failed (`ExecutionTimeoutError`); up to `MAX_DELAY_MS` (about 24.8 days), `Infinity` for none. */
  readonly timeout?: number;
}

/**
 * The zod schema of {@link CollectOptions}.
 *
 * @remarks
 * Strict: an unknown key is an error. `fanIn()` and `barrier()` validate with it.
 *
 * @example
 * ```ts
 * import { parseConfig } from '@rxagents/core';
 * import { ChannelExecutionStrategy, CollectOptionsSchema } from '@rxagents/patterns';
 *
 * const limits = parseConfig(CollectOptionsSchema, JSON.parse('{ "concurrency": 2, "timeout": 30000 }'), 'FanIn options');
 * const strategy = ChannelExecutionStrategy.fanIn(limits);
 * console.log(CollectOptionsSchema.safeParse({ concurrency: 1.5 }).success); // false
 * ```
 */
export const CollectOptionsSchema = z.strictObject({
  concurrency: configRules.positiveInt().optional(),
  agentTimeout: configRules.timeoutMs().optional(),
  timeout: configRules.timeoutMs().optional(),
});

/**
 * The zod schema of a {@link ConversationStrategy}'s settings (everything but `kind`).
 *
 * @remarks
 * Strict: an unknown key is an error. `ChannelExecutionStrategy.conversation()` validates with it.
 *
 * @example
 * ```ts
 * import { ConversationStrategySchema, TerminationCondition, TurnPolicy } from '@rxagents/patterns';
 *
 * const check = ConversationStrategySchema.safeParse({ turnPolicy: TurnPolicy.roundRobin(), termination: TerminationCondition.maxMessages(4) });
 * console.log(check.success); // false: project is missing
 * ```
 */
export const ConversationStrategySchema = z.strictObject({
  turnPolicy: z.custom<TurnPolicy>((v) => typeof (v as TurnPolicy | undefined)?.next === 'function', { error: 'must be a TurnPolicy (with next())' }),
  termination: z.custom<TerminationCondition<ConversationState>>((v) => typeof (v as TerminationCondition<ConversationState> | undefined)?.evaluate === 'function', {
    error: 'must be a TerminationCondition (with evaluate())',
  }),
  project: configRules.function<(state: ConversationState) => unknown>(),
  prompt: configRules.function<ConversationPrompt>().optional(),
  iterations: configRules.function<(state: ConversationState) => number>().optional(),
  ownReplies: z.instanceof(WeakSet, { error: 'must be a WeakSet' }).optional(),
});

/**
 * Invokes every agent and aggregates each result as it arrives on the channel (see {@link ChannelExecutionStrategy}).
 *
 * @example
 * ```ts
 * import { defineAgent } from '@rxagents/core';
 * import { ChannelBackend, ChannelExecutionStrategy, ExecutionModel, Patterns, runModel, type FanInStrategy } from '@rxagents/patterns';
 *
 * const voters = [defineAgent('a', async () => 'yes'), defineAgent('b', async () => 'yes'), defineAgent('c', async () => 'no')];
 * // Like `.overChannel()`, but at most two voters answer at once.
 * const twoAtATime: FanInStrategy = ChannelExecutionStrategy.fanIn({ concurrency: 2 });
 * const model = ExecutionModel.withBackend(Patterns.voting({ agents: voters }).build(), ChannelBackend(twoAtATime));
 * runModel(model, 'Ship?').subscribe(({ status, output }) => console.log(status, output));
 * // running yes (once per vote), then: completed yes
 * ```
 */
export interface FanInStrategy extends CollectOptions {
  readonly kind: 'fanIn';
}

/**
 * Invokes every agent and releases once every contributor has written (see {@link ChannelExecutionStrategy}).
 *
 * @example
 * ```ts
 * import { ChannelExecutionStrategy, type BarrierStrategy } from '@rxagents/patterns';
 *
 * const describe = (strategy: ChannelExecutionStrategy<unknown>): string =>
 *   strategy.kind === 'conversation' ? `conversation (${strategy.turnPolicy.name})` : `${strategy.kind}, timeout ${strategy.timeout ?? 'from the model'}`;
 * const gate: BarrierStrategy = ChannelExecutionStrategy.barrier({ timeout: 60_000 });
 * console.log(describe(gate)); // barrier, timeout 60000
 * ```
 */
export interface BarrierStrategy extends CollectOptions {
  readonly kind: 'barrier';
}

/**
 * How a pattern uses its channel: a discriminated union on `kind`.
 *
 * @remarks
 * - `conversation`: a {@link ConversationOrchestrator} over the channel: participants post replies, the
 *   state is the channel's fold, a turn policy picks speakers, the strategy's own
 *   `TerminationCondition<ConversationState>` decides when to stop, `project` maps the projection to
 *   the model's state (so no unsound cast bridges `ConversationState` and `T`).
 * - `fanIn`: invokes every agent concurrently (bounded by `concurrency`), posts each result on the
 *   channel, and aggregates results in arrival order, one snapshot each.
 * - `barrier`: the same dispatch, but nothing is aggregated until every contributor has written; then the
 *   results are aggregated in agent order, in one step.
 * FanIn and Barrier dispatch concurrently
 * with a per-agent and an overall timeout; a timed-out agent is a recorded result, never a hang.
 *
 * @example
 * ```ts
 * import { ChannelExecutionStrategy, TerminationCondition, TurnPolicy } from '@rxagents/patterns';
 *
 * const debate = ChannelExecutionStrategy.conversation({
 *   turnPolicy: TurnPolicy.roundRobin(),
 *   termination: TerminationCondition.maxIterations(3),
 *   project: (state) => state,
 * });
 * const vote = ChannelExecutionStrategy.fanIn({ concurrency: 4, agentTimeout: 10_000, timeout: 30_000 });
 * const gate = ChannelExecutionStrategy.barrier({ timeout: 60_000 });
 * ```
 */
export type ChannelExecutionStrategy<T> = ConversationStrategy<T> | FanInStrategy | BarrierStrategy;
