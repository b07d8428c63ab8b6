export type { ToolCallingModel, ToolCallingRequest, ToolCallingResponse, ToolDefinition } from './ToolCallingModel';
export { HandoffContext, HandoffContextInitSchema, type HandoffContextInit } from './HandoffContext';
export type { HandoffResult } from './HandoffResult';
export type { HandoffListener } from './HandoffListener';
export type { HandoffStrategy, HandoffSource, HandoffExecuteOptions } from './HandoffStrategy';
export type { HandoffPredicate } from './HandoffPredicate';
export { DefaultHandoff, HandoffExecuteOptionsSchema } from './DefaultHandoff';
export { HandoffChain, HandoffChainBuilder, type HandoffChainStep } from './HandoffChain';
export { ConditionalHandoff, type HandoffRoute } from './ConditionalHandoff';
export { handoffTo, type HandoffOperatorOptions } from './handoffTo';
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
export { HandoffDepthError } from './errors/HandoffDepthError';
export { HandoffTimeoutError } from './errors/HandoffTimeoutError';
export { HandoffValidationError } from './errors/HandoffValidationError';
export { HandoffRoutingError } from './errors/HandoffRoutingError';
