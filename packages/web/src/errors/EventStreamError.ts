import { CoordinationError } from '@rxagents/core';

/**
 * What went wrong reading an event stream: `EVENT_STREAM_STATUS` (the server did not answer with an event
 * stream), `EVENT_STREAM_BAD_FRAME` (a frame is not JSON or does not match the schema) or
 * `EVENT_STREAM_DROPPED` (the connection broke and could not be resumed).
 *
 * @example
 * ```ts
 * import { EventStreamError } from '@rxagents/web/client';
 *
 * const error = new EventStreamError('EVENT_STREAM_STATUS', 'The event stream answered 404', { status: 404 });
 * console.log(error.code, error.context?.['status']); // EVENT_STREAM_STATUS 404
 * ```
 */
export class EventStreamError extends CoordinationError {
  constructor(code: EventStreamErrorCode, message: string, context: Readonly<Record<string, unknown>> = {}, cause?: unknown) {
    // A dropped connection or a server error may go away; a bad frame or a client error will not.
    const status = context['status'];
    const retryable = code === 'EVENT_STREAM_DROPPED' || (typeof status === 'number' && (status >= 500 || status === 429));
    super(code, message, { retryable, context, cause });
  }
}

/**
 * The codes of an {@link EventStreamError}.
 *
 * @example
 * ```ts
 * import type { EventStreamErrorCode } from '@rxagents/web/client';
 *
 * const code: EventStreamErrorCode = 'EVENT_STREAM_BAD_FRAME';
 * console.log(code); // EVENT_STREAM_BAD_FRAME
 * ```
 */
export type EventStreamErrorCode = 'EVENT_STREAM_STATUS' | 'EVENT_STREAM_BAD_FRAME' | 'EVENT_STREAM_DROPPED';
