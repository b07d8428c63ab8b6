import { ChoreographySpec, type StepResult } from '@rxagents/choreography';
import { RunEventSchema, type RunEvent } from '@rxagents/core';

/** A successful step: the target's id, the prompt it got, its reply, and its start and duration on the scheduler. */
export const step = (interactionId: string, agentId: string, input: string, output: string, startedAt: number, durationMs: number): StepResult => ({
  interactionId,
  agentId,
  input,
  output,
  success: true,
  startedAt,
  durationMs,
});

/** `type@at who`, plus the delta, the decision or the error's name: enough to read an event's place in a run. */
export function brief(event: RunEvent): string {
  const who = 'agentId' in event ? event.agentId : 'name' in event ? event.name : '';
  const extra =
    event.type === 'text-delta'
      ? `:${event.delta}`
      : event.type === 'choreography-event'
        ? `<${event.source ?? 'null'}`
        : event.type === 'termination'
          ? `:${event.decision}`
          : event.type === 'call-error' || ((event.type === 'run-end' || event.type === 'step') && !event.success)
            ? `:${event.error?.name}`
            : '';
  return `${event.type}@${event.at} ${who}${extra}`;
}

/** Every event is valid on the wire and keeps the shared fields first, in order. */
export function checked(events: readonly RunEvent[]): readonly RunEvent[] {
  for (const event of events) {
    expect(RunEventSchema.parse(JSON.parse(JSON.stringify(event)))).toEqual(event);
    expect(Object.keys(event).slice(0, 5)).toEqual(['type', 'runId', 'callId', 'parentCallId', 'at']);
  }
  return events;
}

/** A logger that says nothing, for runs whose warnings a test does not read. */
export const silent = { warn: (): void => undefined };

/** research (on `start`) -> draft: the two-step spec most engine tests run. */
export function articleSpec(): ChoreographySpec {
  return ChoreographySpec.builder('article')
    .initialEvent('start')
    .interaction('research', 'system', 'researcher', 'start', 'researched', 'Collect sources')
    .interaction('draft', 'researcher', 'writer', 'researched', null, 'Write a draft')
    .build();
}
