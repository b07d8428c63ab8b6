import type { RunEvent } from '@rxagents/core';

/** A call id's place: the id without its attempt marks (`#n`). */
const placeOf = (callId: string): string => callId.replace(/#\d+/g, '');

/**
 * A remote agent's run event, read by a caller that re-attached to a call another attempt of the same call
 * sent, as an event of this attempt (`callId`, under `parentCallId`): the sending attempt's node becomes
 * this one, and every node the remote agent made under it gets an id of its own under this attempt
 * (`<callId>/<id>`). A resumed durable run's journal already holds the sending attempt's nodes (closed as
 * interrupted when they were open at the crash): read again under their own ids they would be taken for
 * those recorded nodes, and differ from them.
 */
export function adoptEvent(event: RunEvent, callId: string, parentCallId: string | null): RunEvent {
  const own = placeOf(callId);
  const parent = parentCallId === null ? null : placeOf(parentCallId);
  const adopt = (id: string): string => {
    const place = placeOf(id);
    if (place === own) return callId;
    if (place === parent && parentCallId !== null) return parentCallId;
    return `${callId}/${id}`;
  };
  return { ...event, callId: adopt(event.callId), parentCallId: event.parentCallId === null ? null : adopt(event.parentCallId) };
}
