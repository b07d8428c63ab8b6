import type { AgentRef as AgentRefType } from './agents/AgentRef';
import * as AgentRefFunctions from './agents/agentRefs';
import type { ExecutionModel as ExecutionModelType } from './execution/ExecutionModel';
import * as ExecutionModelFunctions from './execution/executionModels';
import type { TurnPolicy as TurnPolicyType } from './conversation/TurnPolicy';
import * as TurnPolicyFunctions from './conversation/turnPolicies';
import type { ConversationState as ConversationStateType } from './conversation/ConversationState';
import * as ConversationStateFunctions from './conversation/conversationStates';
import type { VotingAggregation as VotingAggregationType } from './builders/VotingAggregation';
import * as VotingAggregationFunctions from './builders/votingAggregations';
import type { ChannelExecutionStrategy as ChannelExecutionStrategyType } from './channel/ChannelExecutionStrategy';
import * as ChannelExecutionStrategyFunctions from './channel/channelExecutionStrategies';
import type { TerminationCondition as TerminationConditionType } from './termination/TerminationCondition';
import * as TerminationConditionFunctions from './termination/terminationConditions';

/**
 * The pattern builders: one configuration surface per pattern, run directly or, with `.overChannel()`, over a channel.
 *
 * @remarks
 * Each builder validates its options at once (`ConfigError`), gives a model with `build()`, a run with
 * `execute(input)` / `execute$(input)` / `snapshots$(input)`, and a `ComposedAgent` with `asAgent(id)`.
 * `.overChannel()` is the one-call mode switch (debate: Conversation with round-robin turns; voting:
 * FanIn; parallel: Barrier); the channel is a transport decision, not a different kind of debate.
 *
 * @example
 * ```ts
 * import { defineAgent } from '@rxagents/core';
 * import { Patterns } from '@rxagents/patterns';
 *
 * const pro = defineAgent('pro', async () => 'Yes, because...');
 * const con = defineAgent('con', async () => 'No, because...');
 * const direct = Patterns.debate({ agents: [pro, con], maxRounds: 2 });
 * const overChannel = direct.overChannel();
 * const [a, b] = await Promise.all([direct.execute('Topic'), overChannel.execute('Topic')]);
 * console.log(a.output === b.output); // true
 * ```
 */
export * as Patterns from './builders/Patterns';
export { PatternBuilder, ExecuteOptionsSchema, type ExecuteOptions } from './builders/PatternBuilder';
export { RunOptionsSchema, type RunOptions } from './execution/RunOptions';
export { DebateBuilder, DebateOptionsSchema, type DebateOptions } from './builders/DebateBuilder';
export { VotingBuilder, VotingOptionsSchema, type VotingOptions, type VotingState } from './builders/VotingBuilder';
export type { Vote, VotingDecision } from './builders/VotingAggregation';
export { ParallelBuilder, ParallelOptionsSchema, type ParallelOptions, type ParallelState } from './builders/ParallelBuilder';
export { SequenceBuilder, SequenceOptionsSchema, type SequenceOptions, type SequenceState } from './builders/SequenceBuilder';
export { SupervisorBuilder, SupervisorOptionsSchema, type SupervisorOptions, type SupervisorState, type SupervisorStep } from './builders/SupervisorBuilder';
export { ExecutionModelSchema, type ExecutionModelDefinition, type ExecutionBackend } from './execution/ExecutionModel';
export type { ExecutionResult, ExecutionStatus } from './execution/ExecutionResult';
export type { AgentResult, AgentSuccess, AgentFailure } from './execution/AgentResult';
export { ComposedAgent, ComposedAgentOptionsSchema, type ComposedAgentOptions } from './agents/ComposedAgent';
export { OrchestratedDriver } from './execution/OrchestratedDriver';
export { runModel } from './execution/runModel';
export { ChannelBackend, ChannelBackendOptionsSchema, type ChannelBackendOptions, type ChannelExecutionBackend, type PatternChannel } from './channel/ChannelBackend';
export {
  CollectOptionsSchema,
  ConversationStrategySchema,
  type CollectOptions,
  type ConversationStrategy,
  type FanInStrategy,
  type BarrierStrategy,
} from './channel/ChannelExecutionStrategy';
export {
  ConversationOrchestrator,
  ConversationOrchestratorOptionsSchema,
  type ConversationOrchestratorOptions,
  type ConversationEvent,
  type ConversationChannel,
} from './conversation/ConversationOrchestrator';
export type { ConversationMessage, PostedMessage, SpeakerCount } from './conversation/ConversationState';
export { PostedMessageSchema, type PostedReply } from './conversation/PostedMessageSchema';
export { conversationPrompt, type ConversationPrompt } from './conversation/conversationPrompt';
export { evaluateTermination } from './termination/evaluateTermination';
export { JudgeConvergenceOptionsSchema, type JudgeConvergenceOptions } from './termination/conversationTerminations';
export { CONTINUE, type TerminationDecision, type TerminationSnapshot } from './termination/TerminationDecision';
export { ExecutionTimeoutError } from './errors/ExecutionTimeoutError';
export { PatternFailedError } from './errors/PatternFailedError';
export { MessageDroppedError } from './errors/MessageDroppedError';
export { UnknownParticipantError } from './errors/UnknownParticipantError';
export { EmptyAnswerError } from './errors/EmptyAnswerError';

// Grouped names: a module namespace of free functions (tree-shakes, cannot form an import cycle) under
// the same name as the type it builds, so that `AgentRef.of(agent)` and `const ref: AgentRef` both read.

/**
 * A participant of a pattern: any `Agent`, or a `ComposedAgent` (a whole pattern as one agent);
 * as a value, the functions that build and inspect one (`of`, `composed`, `isComposed`).
 *
 * @remarks
 * Both variants share the `Agent` contract, so the driver, the channel strategies and a supervisor call
 * every participant the same way, through core's `invoke$` (which wires cancellation and timeouts).
 * `AgentRef.isComposed` tells them apart when a caller wants the sub-task's live snapshots.
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
export type AgentRef = AgentRefType;
export const AgentRef: typeof AgentRefFunctions = AgentRefFunctions;

/**
 * Decides, from one snapshot of a run, whether it goes on; as a value, the factories and combinators of
 * conditions (`maxIterations`, `timeout`, `of`, `or`, `and` on any state; `textMention`, `maxMessages`,
 * `judgeConvergence` on a `ConversationState`).
 *
 * @remarks
 * `evaluate` returns a decision at once or an `ObservableInput` of one (a judge agent answers later);
 * the run waits for it, and unsubscribing from the run cancels it. Conditions are evaluated between
 * steps (after each driver iteration, after each conversation turn), never while an agent is speaking:
 * to interrupt a slow agent use the pattern's `agentTimeout` or `timeout`. Combine conditions with
 * {@link TerminationCondition.or} and {@link TerminationCondition.and}; both look at the same snapshot,
 * so, unlike AutoGen's sticky `&`, an `and` only stops when every part holds *at the same time*.
 *
 * @example
 * ```ts
 * import { TerminationCondition, type ConversationState } from '@rxagents/patterns';
 *
 * const stop = TerminationCondition.or<ConversationState>(
 *   TerminationCondition.textMention('TERMINATE'),
 *   TerminationCondition.maxMessages(20),
 * );
 * ```
 */
export type TerminationCondition<T> = TerminationConditionType<T>;
export const TerminationCondition: typeof TerminationConditionFunctions = TerminationConditionFunctions;

/**
 * Everything a backend needs to run a pattern: agents, the five phases' functions, termination, backend;
 * as a value, `create` (validates a definition) and `withBackend`.
 *
 * @remarks
 * The {@link OrchestratedDriver} loops over the phases: **route** (`route` picks the agents of this
 * iteration; none left ends the run), **activate** (`prompt` builds each agent's input, at the moment
 * its call starts, so with `concurrency` 1 an agent sees the results aggregated before it), **dispatch**
 * (calls through core's `invoke$`, at most `concurrency` at once, each bounded by `agentTimeout`, all by
 * `timeout`), **aggregate** (`aggregate` folds each result into the state as it arrives) and **check
 * termination** (`termination` on the new snapshot). `backend`, when set, replaces the driver: a
 * pattern's `.overChannel()` sets it. Build one with {@link ExecutionModel.create}, which validates it.
 *
 * @example
 * ```ts
 * import { defineAgent } from '@rxagents/core';
 * import { ExecutionModel, TerminationCondition, runModel } from '@rxagents/patterns';
 *
 * const counter = defineAgent('counter', async (input) => String(Number(input) + 1));
 * const model = ExecutionModel.create<number>({
 *   pattern: 'count-to-three',
 *   agents: [counter],
 *   initialState: (input) => Number(input),
 *   route: () => [counter],
 *   prompt: (state) => String(state),
 *   aggregate: (state, result) => (result.success ? Number(result.output) : state),
 *   termination: TerminationCondition.maxIterations(3),
 *   output: (state) => String(state),
 * });
 * runModel(model, '0').subscribe((result) => console.log(result.status, result.output));
 * ```
 */
export type ExecutionModel<T> = ExecutionModelType<T>;
export const ExecutionModel: typeof ExecutionModelFunctions = ExecutionModelFunctions;

/**
 * Decides who speaks next in a conversation; as a value, `roundRobin`, `freeForAll`, `addressed` and `custom`.
 *
 * @remarks
 * `next(state)` returns the ids of the participants who speak in the next turn: one for a round robin,
 * every participant at once for a free-for-all (they answer concurrently, each seeing the same
 * transcript). An empty list ends the conversation with status `completed`. A returned id that is not a
 * participant fails the run with `UnknownParticipantError`. Policies must be pure functions of the state;
 * build one with {@link TurnPolicy.custom}.
 *
 * @example
 * ```ts
 * import { ConversationState, TurnPolicy } from '@rxagents/patterns';
 *
 * const policy = TurnPolicy.roundRobin();
 * const state = ConversationState.initial('topic', ['a', 'b', 'c']);
 * console.log(policy.next(state)); // [ 'a' ]
 * ```
 */
export type TurnPolicy = TurnPolicyType;
export const TurnPolicy: typeof TurnPolicyFunctions = TurnPolicyFunctions;

/**
 * The projection of a conversation: what every participant and observer sees; as a value, `initial`, `fold` and `transcript`.
 *
 * @remarks
 * It is a fold of the channel's messages ({@link ConversationState.fold}, used with `scan`), never
 * mutated: each message gives a new snapshot, in O(1): the snapshots of one conversation share one
 * append-only log, and each reads its own `messages` as a frozen array built on first read. `round`
 * counts *completed* rounds, the fewest contributions any participant has made, so it advances when
 * everybody has spoken once more
 * (after three turns of a three-agent round robin, after one turn of a free-for-all). `roundComplete`
 * says whether the last message completed a round; judge-based termination looks at it.
 *
 * @example
 * ```ts
 * import { ConversationState } from '@rxagents/patterns';
 *
 * let state = ConversationState.initial('Tabs or spaces?', ['alice', 'bob']);
 * state = ConversationState.fold(state, { speaker: 'alice', content: 'Tabs.', at: 0 });
 * state = ConversationState.fold(state, { speaker: 'bob', content: 'Spaces.', at: 5 });
 * console.log(state.round, state.roundComplete, state.lastSpeaker); // 1 true bob
 * ```
 */
export type ConversationState = ConversationStateType;
export const ConversationState: typeof ConversationStateFunctions = ConversationStateFunctions;

/**
 * Turns votes into a decision; the run's status is `deadlocked` when there is no winner; as a value, `majority` and `unanimous`.
 *
 * @example
 * ```ts
 * import { VotingAggregation } from '@rxagents/patterns';
 *
 * const decision = VotingAggregation.majority()([
 *   { agentId: 'a', choice: 'yes' },
 *   { agentId: 'b', choice: 'no' },
 * ]);
 * console.log(decision.winner, decision.reason); // undefined tie between no, yes (1 vote each)
 * ```
 */
export type VotingAggregation = VotingAggregationType;
export const VotingAggregation: typeof VotingAggregationFunctions = VotingAggregationFunctions;

/**
 * How a pattern uses its channel: a discriminated union on `kind`; as a value, `conversation`, `fanIn`
 * and `barrier`, which build one.
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
export type ChannelExecutionStrategy<T> = ChannelExecutionStrategyType<T>;
export const ChannelExecutionStrategy: typeof ChannelExecutionStrategyFunctions = ChannelExecutionStrategyFunctions;
