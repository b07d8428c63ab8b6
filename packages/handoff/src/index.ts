export type { ToolCallingModel, ToolCallingRequest, ToolCallingResponse, ToolDefinition } from './ToolCallingModel';
export { HandoffContext, HandoffContextInitSchema, type HandoffContextInit, type HandoffPayload } from './HandoffContext';
export type { HandoffResult } from './HandoffResult';
export type { HandoffListener } from './HandoffListener';
export type { HandoffStrategy, HandoffSource, HandoffExecuteOptions, HandoffPrompt } from './HandoffStrategy';
export { defaultHandoffPrompt } from './defaultHandoffPrompt';
export type { HandoffPredicate } from './HandoffPredicate';
export { DefaultHandoff, HandoffExecuteOptionsSchema } from './DefaultHandoff';
export { HandoffChain, HandoffChainBuilder } from './HandoffChain';
export { HandoffChainOptionsSchema, type HandoffChainOptions } from './HandoffChainOptions';
export type { HandoffChainStep } from './HandoffChainStep';
export { ConditionalHandoff, type HandoffRoute } from './ConditionalHandoff';
export { handoffTo, HandoffOperatorOptionsSchema, type HandoffOperatorOptions } from './handoffTo';
export { handoffThrough } from './handoffThrough';
export { routeHandoff } from './routeHandoff';
export {
  currentHandoffChain,
  currentHandoffDepth,
  runWithHandoffChain,
  resetHandoffChain,
  handoffChainUsesAsyncContext,
} from './currentHandoffChain';
export { HandoffCycleError } from './errors/HandoffCycleError';
export { HandoffDepthError, type HandoffSides } from './errors/HandoffDepthError';
export { HandoffTimeoutError, type HandoffTimeoutDetails } from './errors/HandoffTimeoutError';
export { HandoffValidationError } from './errors/HandoffValidationError';
export { HandoffRoutingError } from './errors/HandoffRoutingError';
export { HandoffContractError } from './errors/HandoffContractError';
export { Handoff, handoff } from './Handoff';
export { HandoffCallOptionsSchema, type HandoffCallOptions } from './HandoffCallOptions';
export { HandoffConfigSchema, type HandoffConfig, type ResolvedHandoffConfig } from './HandoffConfig';
export type { HandoffEnabled, HandoffEnabledContext } from './HandoffEnabled';
export { HandoffRequestSchema, type HandoffRequest } from './HandoffRequest';
export type { HandoffOutcome, HandoffRunContext } from './HandoffOutcome';
export {
  selectHandoffMessages,
  HandoffMessageSelectionSchema,
  estimateTokens,
  SUMMARY_MESSAGE_COUNT,
  type ContextPolicy,
  type TokenCounter,
  type HandoffMessageSelection,
} from './selectHandoffMessages';
export { handoffToolName, handoffToolDescription, MAX_TOOL_NAME_LENGTH } from './handoffToolName';
export {
  resolveHandoffToolPolicy,
  DEFAULT_HANDOFF_TOOL_POLICY,
  HandoffToolPolicySchema,
  type HandoffToolPolicy,
  type HandoffToolPolicyMode,
} from './HandoffToolPolicy';
export { handoffFilters, type HandoffCondition, type HandoffConditionContext } from './handoffFilters';
export { messageFilters, type MessageFilter } from './messageFilters';
export { normalizeHandoffs, type HandoffSpec } from './normalizeHandoffs';
export {
  parallelHandoffs,
  parallelHandoffs$,
  parallelHandoffsEvents$,
  ParallelHandoffsOptionsSchema,
  type ParallelHandoffsOptions,
  type ParallelHandoffTask,
} from './parallelHandoffs';
export { routingAgent, RoutingAgentConfigSchema, type RoutingAgent, type RoutingAgentConfig } from './routingAgent';
