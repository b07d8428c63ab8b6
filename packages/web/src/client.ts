/**
 * `@rxagents/web/client`: the browser-safe half of `@rxagents/web` (no Node imports).
 *
 * @packageDocumentation
 */
export { fromEventStream, type FromEventStreamOptions } from './fromEventStream';
export type { EventStreamRetry } from './EventStreamRetry';
export type { EventStreamStatus } from './EventStreamStatus';
export { EventStreamError, type EventStreamErrorCode } from './errors/EventStreamError';
export { RemoteRunError } from './errors/RemoteRunError';
export { runTextPartMetadata } from './runTextPartMetadata';
export type { RunTextPartMetadata } from './RunUIMessageChunk';
