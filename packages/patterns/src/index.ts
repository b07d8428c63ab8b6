export { Patterns } from './Patterns';
export { PatternBuilder, ExecuteOptionsSchema, type ExecuteOptions } from './PatternBuilder';
export { DebateBuilder, DebateOptionsSchema, type DebateOptions } from './DebateBuilder';
export { VotingBuilder, VotingOptionsSchema, type VotingOptions, type VotingState } from './VotingBuilder';
export { VotingAggregation, type Vote, type VotingDecision } from './VotingAggregation';
export { ParallelBuilder, ParallelOptionsSchema, type ParallelOptions, type ParallelState } from './ParallelBuilder';
export { SequenceBuilder, SequenceOptionsSchema, type SequenceOptions, type SequenceState } from './SequenceBuilder';
export { SupervisorBuilder, SupervisorOptionsSchema, type SupervisorOptions, type SupervisorState, type SupervisorStep } from './SupervisorBuilder';
export { ExecutionModel, ExecutionModelSchema, type ExecutionModelDefinition } from './ExecutionModel';
export type { ExecutionBackend } from './ExecutionBackend';
export type { ExecutionResult, ExecutionStatus } from './ExecutionResult';
export type { AgentResult, AgentSuccess, AgentFailure } from './AgentResult';
export { AgentRef } from './AgentRef';
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
export { TerminationCondition, evaluateTermination } from './TerminationCondition';
export { JudgeConvergenceOptionsSchema, type JudgeConvergenceOptions } from './conversationTerminations';
export { CONTINUE, type TerminationDecision, type TerminationSnapshot } from './TerminationDecision';
export { ExecutionTimeoutError } from './errors/ExecutionTimeoutError';
export { PatternFailedError } from './errors/PatternFailedError';
export { MessageDroppedError } from './errors/MessageDroppedError';
export { UnknownParticipantError } from './errors/UnknownParticipantError';
