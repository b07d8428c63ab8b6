/**
 * An event on a choreography's bus.
 *
 * @remarks
 * Initial events carry a `name`, and the run's `input` when it was given one (which becomes the first
 * agents' `Context:`). An event an interaction emits also carries the agent's `output`
 * (which becomes the next agent's `Context:`), the `interactionId` that emitted it and that
 * interaction's `agentId`.
 *
 * @example
 * ```ts
 * import type { ChoreographyEvent } from '@rxagents/choreography';
 *
 * const researched: ChoreographyEvent = { name: 'researched', output: '3 sources', interactionId: 'research', agentId: 'researcher' };
 * ```
 */
export interface ChoreographyEvent {
  /** The event name interactions trigger on, for example `researched`. */
  readonly name: string;
  /** The output of the agent whose interaction emitted the event; absent on initial events. */
  readonly output?: string;
  /** The run's input, on initial events of a run given one. */
  readonly input?: string;
  /** The interaction that emitted the event; absent on initial events. */
  readonly interactionId?: string;
  /** The agent that ran that interaction; absent on initial events. */
  readonly agentId?: string;
}
