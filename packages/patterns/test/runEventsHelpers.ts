import { RunEventSchema, type RunEvent } from '@rxagents/core';

/** `type@at who` (plus the delta, the error name or the decision), for comparing event order and times. */
export function brief(event: RunEvent): string {
  switch (event.type) {
    case 'run-start':
      return `run-start@${event.at} ${event.name}`;
    case 'run-end':
      return `run-end@${event.at} ${event.success ? 'ok' : `failed:${event.error?.name ?? ''}`}`;
    case 'text-delta':
      return `text-delta@${event.at} ${event.agentId}:${event.delta}`;
    case 'call-error':
      return `call-error@${event.at} ${event.agentId}:${event.error.name}`;
    case 'call-start':
    case 'call-end':
      return `${event.type}@${event.at} ${event.agentId}`;
    case 'message':
      return `message@${event.at} ${event.speaker}:${event.content}`;
    case 'round-end':
      return `round-end@${event.at} ${event.round}`;
    case 'termination':
      return `termination@${event.at} ${event.decision}`;
    case 'metrics':
      return `metrics@${event.at} ${event.source}`;
    default:
      return `${event.type}@${event.at}`;
  }
}

/** Asserts that every event survives JSON and passes the schema unchanged. */
export function expectValidEvents(events: readonly RunEvent[]): void {
  for (const event of events) expect(RunEventSchema.parse(JSON.parse(JSON.stringify(event)))).toEqual(event);
}

/** The events of `type`. */
export function ofType<K extends RunEvent['type']>(events: readonly RunEvent[], type: K): Extract<RunEvent, { type: K }>[] {
  return events.filter((event): event is Extract<RunEvent, { type: K }> => event.type === type);
}
