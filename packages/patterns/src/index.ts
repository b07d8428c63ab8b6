import type { AgentRef as AgentRefType } from './AgentRef';
import * as AgentRefFunctions from './agentRefs';
import type { ExecutionModel as ExecutionModelType } from './ExecutionModel';
import * as ExecutionModelFunctions from './executionModels';
import type { TerminationCondition as TerminationConditionType } from './TerminationCondition';
import * as TerminationConditionFunctions from './terminationConditions';

export { Patterns } from './Patterns';
export { PatternBuilder, ExecuteOptionsSchema, type ExecuteOptions } from './PatternBuilder';
export { DebateBuilder, DebateOptionsSchema, type DebateOptions } from './DebateBuilder';
export { VotingBuilder, VotingOptionsSchema, type VotingOptions, type VotingState } from './VotingBuilder';
export { VotingAggregation, type Vote, type VotingDecision } from './VotingAggregation';
export { ParallelBuilder, ParallelOptionsSchema, type ParallelOptions, type ParallelState } from './ParallelBuilder';
export { SequenceBuilder, SequenceOptionsSchema, type SequenceOptions, type SequenceState } from './SequenceBuilder';
export { SupervisorBuilder, SupervisorOptionsSchema, type SupervisorOptions, type SupervisorState, type SupervisorStep } from './SupervisorBuilder';
export { ExecutionModelSchema, type ExecutionModelDefinition, type ExecutionBackend } from './ExecutionModel';
export type { ExecutionResult, ExecutionStatus } from './ExecutionResult';
export type { AgentResult, AgentSuccess, AgentFailure } from './AgentResult';
export { ComposedAgent, ComposedAgentOptionsSchema, type ComposedAgentOptions } from './ComposedAgent';
export { OrchestratedDriver } from './OrchestratedDriver';
export { runModel } from './runModel';
export { ChannelBackend, ChannelBackendOptionsSchema, type ChannelBackendOptions, type ChannelExecutionBackend, type PatternChannel } from './ChannelBackend';
export {
  ChannelExecutionStrategy,
  CollectOptionsSchema,
  ConversationStrategySchema,
  type CollectOptions,
  type ConversationStrategy,
  type FanInStrategy,
  type BarrierStrategy,
} from './ChannelExecutionStrategy';
export {
  ConversationOrchestrator,
  ConversationOrchestratorOptionsSchema,
  type ConversationOrchestratorOptions,
  type ConversationEvent,
  type ConversationChannel,
} from './ConversationOrchestrator';
export { ConversationState, type ConversationMessage, type PostedMessage } from './ConversationState';
export { conversationPrompt, type ConversationPrompt } from './conversationPrompt';
export { TurnPolicy } from './TurnPolicy';
export { evaluateTermination } from './evaluateTermination';
export { JudgeConvergenceOptionsSchema, type JudgeConvergenceOptions } from './conversationTerminations';
export { CONTINUE, type TerminationDecision, type TerminationSnapshot } from './TerminationDecision';
export { ExecutionTimeoutError } from './errors/ExecutionTimeoutError';
export { PatternFailedError } from './errors/PatternFailedError';
export { MessageDroppedError } from './errors/MessageDroppedError';
export { UnknownParticipantError } from './errors/UnknownParticipantError';

// Grouped names: a module namespace of free functions (tree-shakes, cannot form an import cycle) under
// the same name as the type it builds, so that `AgentRef.of(agent)` and `const ref: AgentRef` both read.

/**
 * A participant of a pattern: any `Agent`, or a `ComposedAgent` (a whole pattern as one agent);
 * as a value, the functions that build and inspect one (`of`, `composed`, `isComposed`).
 *
 * @remarks
 * Both variants share the `Agent` contract, so the driver, the channel strategies and a supervisor call
 * every participant the same way, through core's `reply` (which wires cancellation and timeouts).
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
export { AgentRefFunctions as AgentRef };

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
export { TerminationConditionFunctions as TerminationCondition };

/**
 * Everything a backend needs to run a pattern: agents, the five phases' functions, termination, backend;
 * as a value, `create` (validates a definition) and `withBackend`.
 *
 * @remarks
 * The {@link OrchestratedDriver} loops over the phases: **route** (`route` picks the agents of this
 * iteration; none left ends the run), **activate** (`prompt` builds each agent's input, at the moment
 * its call starts, so with `concurrency` 1 an agent sees the results aggregated before it), **dispatch**
 * (calls through core's `reply`, at most `concurrency` at once, each bounded by `agentTimeout`, all by
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
 *   aggregate: (state, result) => (result.ok ? Number(result.output) : state),
 *   termination: TerminationCondition.maxIterations(3),
 *   output: (state) => String(state),
 * });
 * runModel(model, '0').subscribe((result) => console.log(result.status, result.output));
 * ```
 */
export type ExecutionModel<T> = ExecutionModelType<T>;
export { ExecutionModelFunctions as ExecutionModel };
