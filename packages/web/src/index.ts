/**
 * `@rxagents/web`: a live rxagents run in a browser over standard Web APIs.
 *
 * @packageDocumentation
 */

export { humanAgent, type HumanAgent, type HumanAgentOptions, type InputRequest } from './humanAgent';
export { InputRequestNotFoundError } from './errors/InputRequestNotFoundError';
export {
  toUIMessageStream,
  ToUIMessageStreamOptionsSchema,
  type ToUIMessageStreamOptions,
  type UIMessageStreamSource,
  type RunUIMessageChunk,
  type RunMessageMetadata,
  type RunUIDataTypes,
  type RunTextPartMetadata,
} from './uiMessageStream';
export { toUIMessageStreamResponse, ToUIMessageStreamResponseOptionsSchema, type ToUIMessageStreamResponseOptions } from './toUIMessageStreamResponse';
