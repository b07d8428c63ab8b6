import type { Agent, RunEvent, RunStore } from '@rxagents/core';
import { defineAgent, stream } from '@rxagents/core';
import { Patterns } from '@rxagents/patterns';
import type { Observable } from 'rxjs';
import { debateCast } from '../cast/debateCast';

/** The topic of the durable scene's debate. */
export const durableTopic = 'Should we split the monolith this year?';

/** The run id the crashed process and the resuming one share. */
export const durableRunId = 'architecture-debate';

/** How long the crashed process's lease lasts: the resuming process waits at most this long for it to lapse. */
export const leaseTtlMs = 1_500;

/**
 * The debate both processes run: the same code, agents and input, so the resumed run reaches the same
 * places. `onCall` hears of every call that really reaches a debater or the judge (not answered from the journal).
 */
export function durableDebate(onCall: (agentId: string) => void = () => undefined): { events$(store: RunStore | undefined, runId: string): Observable<RunEvent> } {
  const { debaters, judge } = debateCast(15);
  const counted = (agent: Agent): Agent => defineAgent(agent.id, (input, options) => {
    onCall(agent.id);
    return stream(agent, input, { context: options.context, metadata: options.metadata });
  });
  const debate = Patterns.debate({ agents: debaters.map(counted), maxRounds: 5, judge: counted(judge), agentTimeout: 5_000 }).overChannel({ id: 'durable-debate' });
  return {
    events$: (store, runId) => (store === undefined ? debate.events$(durableTopic) : debate.events$(durableTopic, { store, runId, leaseTtlMs })),
  };
}
