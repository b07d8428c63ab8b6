import type { EventSourceMessage } from 'eventsource-parser';
import { EventStreamError } from '../errors/EventStreamError';

// What `fromEventStream` reads of a frame and of an answer, apart from the reading itself.

/** The statuses a proxy answers while the server behind it is down or restarting: a drop, not a refusal. */
export const RESTARTING: ReadonlySet<number> = new Set([502, 503, 504]);

export function safeJson(data: string): unknown {
  try {
    return JSON.parse(data) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * Whether `id` goes back unchanged as a `Last-Event-ID` header: a sequence number always does; any other id
 * is checked by the platform's own header rules (no character above U+00FF, no NUL, no surrounding spaces).
 */
export function resendable(id: string): boolean {
  if (!Number.isNaN(sequence(id))) return true;
  try {
    return new Headers([['last-event-id', id]]).get('last-event-id') === id;
  } catch {
    return false;
  }
}

/** An id as a sequence number (a decimal integer), else NaN: only sequence numbers are compared to skip repeats. */
export function sequence(id: string): number {
  return id.length > 0 && id.length < 16 && /^\d+$/.test(id) ? Number(id) : NaN;
}

export function badFrame(message: EventSourceMessage, why: string): EventStreamError {
  return new EventStreamError('EVENT_STREAM_BAD_FRAME', `A bad event stream frame${message.id === undefined ? '' : ` (id ${message.id})`}: ${why}`, {
    id: message.id,
    event: message.event,
    data: message.data.length > 200 ? `${message.data.slice(0, 200)}…` : message.data,
  });
}
