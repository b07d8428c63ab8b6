/**
 * `@rxagents/web`: a live rxagents run in a browser over standard Web APIs.
 *
 * @packageDocumentation
 */
export { toEventStream, type ToEventStreamOptions, type EventStreamSource } from './toEventStream';
export { toEventStreamResponse, type ToEventStreamResponseOptions } from './toEventStreamResponse';
export { writeToNodeResponse, type WriteToNodeResponseOptions, type NodeServerResponse } from './writeToNodeResponse';
export { toWebRequest, type NodeIncomingMessage, type NodeResponseEvents } from './toWebRequest';
export { fromEventStream, type FromEventStreamOptions } from './fromEventStream';
export type { EventStreamRetry } from './EventStreamRetry';
export type { EventStreamStatus } from './EventStreamStatus';
export { EventStreamError, type EventStreamErrorCode } from './errors/EventStreamError';
export { RemoteRunError } from './errors/RemoteRunError';
export { createRunRegistry, type RunRegistry, type DurableRunRegistry, type RunRegistryOptions } from './createRunRegistry';
export { ReplayGapError } from './errors/ReplayGapError';
export { RunRegistryFullError } from './errors/RunRegistryFullError';
export { RunForgottenError, type RunForgottenReason } from './errors/RunForgottenError';
export { ViewerStalledError } from './errors/ViewerStalledError';
export { RunHeldElsewhereError } from './errors/RunHeldElsewhereError';
export { redactError, type ExposeError } from './redactError';
export { humanAgent, type HumanAgent, type HumanAgentOptions } from './humanAgent';
export {
  toUIMessageStream,
  ToUIMessageStreamOptionsSchema,
  type ToUIMessageStreamOptions,
  type UIMessageStreamSource,
} from './uiMessageStream';
export {
  type RunUIMessageChunk,
  type RunMessageMetadata,
  type RunUIDataTypes,
  type RunTextPartMetadata,
  type RunInterruptData,
  type RunApprovalToolMetadata,
} from './RunUIMessageChunk';
export { approvalAnswersOf, ChatRequestBodySchema, type ApprovalAnswer, type ChatRequestBody } from './approvalAnswersOf';
export {
  answerFromChatRequest,
  AnswerFromChatRequestOptionsSchema,
  type AnswerApproval,
  type AnswerFromChatRequestOptions,
  type AnsweredChatRequest,
} from './answerFromChatRequest';
export { ChatRequestError, type ChatRequestErrorCode } from './errors/ChatRequestError';
export { runTextPartMetadata } from './runTextPartMetadata';
export { toUIMessageStreamResponse, ToUIMessageStreamResponseOptionsSchema, type ToUIMessageStreamResponseOptions } from './toUIMessageStreamResponse';
