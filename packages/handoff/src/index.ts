export type { ToolCallingModel, ToolCallingRequest, ToolCallingResponse, ToolDefinition } from './tools/ToolCallingModel';
export { HandoffContext, HandoffContextInitSchema, type HandoffContextInit, type HandoffPayload } from './context/HandoffContext';
export type { HandoffResult } from './strategy/HandoffResult';
export type { HandoffListener } from './strategy/HandoffListener';
export type { HandoffStrategy, HandoffSource, HandoffExecuteOptions, HandoffPrompt } from './strategy/HandoffStrategy';
export { defaultHandoffPrompt } from './strategy/defaultHandoffPrompt';
export type { HandoffPredicate } from './chain/HandoffPredicate';
export { DefaultHandoff, HandoffExecuteOptionsSchema } from './strategy/DefaultHandoff';
export { HandoffChain, HandoffChainBuilder } from './chain/HandoffChain';
export { HandoffChainOptionsSchema, type HandoffChainOptions } from './chain/HandoffChainOptions';
export type { HandoffChainStep } from './chain/HandoffChainStep';
export { ConditionalHandoff, type HandoffRoute } from './routing/ConditionalHandoff';
export { handoffTo, HandoffOperatorOptionsSchema, type HandoffOperatorOptions } from './operators/handoffTo';
export { handoffThrough } from './operators/handoffThrough';
export { routeHandoff } from './operators/routeHandoff';
export {
  currentHandoffChain,
  currentHandoffDepth,
  runWithHandoffChain,
  resetHandoffChain,
  handoffChainUsesAsyncContext,
} from './guards/currentHandoffChain';
export { HandoffCycleError } from './errors/HandoffCycleError';
export { HandoffDepthError, type HandoffSides } from './errors/HandoffDepthError';
export { HandoffTimeoutError, type HandoffTimeoutDetails } from './errors/HandoffTimeoutError';
export { HandoffValidationError } from './errors/HandoffValidationError';
export { HandoffRoutingError } from './errors/HandoffRoutingError';
export { HandoffContractError } from './errors/HandoffContractError';
export { HandoffRejectedError } from './errors/HandoffRejectedError';
export { HandoffApprovalUnavailableError } from './errors/HandoffApprovalUnavailableError';
export { Handoff, handoff } from './handoff/Handoff';
export { HandoffCallOptionsSchema, type HandoffCallOptions } from './handoff/HandoffCallOptions';
export { HandoffConfigSchema, type HandoffConfig, type ResolvedHandoffConfig } from './handoff/HandoffConfig';
export type { HandoffEnabled, HandoffEnabledContext } from './handoff/HandoffEnabled';
export type { HandoffNeedsApproval, HandoffApprovalContext } from './handoff/HandoffApproval';
export { HandoffRequestSchema, type HandoffRequest } from './handoff/HandoffRequest';
export type { HandoffOutcome, HandoffRunContext } from './handoff/HandoffOutcome';
export {
  selectHandoffMessages,
  HandoffMessageSelectionSchema,
  estimateTokens,
  SUMMARY_MESSAGE_COUNT,
  type ContextPolicy,
  type TokenCounter,
  type HandoffMessageSelection,
} from './context/selectHandoffMessages';
export { handoffToolName, handoffToolDescription, MAX_TOOL_NAME_LENGTH } from './tools/handoffToolName';
export {
  resolveHandoffToolPolicy,
  DEFAULT_HANDOFF_TOOL_POLICY,
  HandoffToolPolicySchema,
  type HandoffToolPolicy,
  type HandoffToolPolicyMode,
} from './tools/HandoffToolPolicy';
export { handoffFilters, type HandoffCondition, type HandoffConditionContext } from './handoff/handoffFilters';
export { messageFilters, type MessageFilter } from './context/messageFilters';
export { normalizeHandoffs, type HandoffSpec } from './routing/normalizeHandoffs';
export {
  parallelHandoffs,
  parallelHandoffs$,
  parallelHandoffsEvents$,
  ParallelHandoffsOptionsSchema,
  type ParallelHandoffsOptions,
  type ParallelHandoffTask,
} from './handoff/parallelHandoffs';
export { routingAgent, RoutingAgentConfigSchema, type RoutingAgent, type RoutingAgentConfig } from './routing/routingAgent';
