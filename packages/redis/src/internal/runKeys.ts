/**
 * The Redis keys of one shared choreography run. Every key shares the hash tag `{runId}`, so a run lives
 * in one Redis Cluster slot and a pipeline over it never crosses slots.
 */
export interface RunKeys {
  /** The run's entries: events, steps, the end. */
  readonly events: string;
  /** Malformed entries of the run, with the reason. */
  readonly deadLetter: string;
  /** The claim of the run's start: held (a lease) by the engine publishing the initial events, then `done`. */
  readonly started: string;
  /** The claim of one interaction triggered by one entry. */
  claim(eventId: string, interactionId: string): string;
  /** Set by the first engine that dead-letters an entry, so it is dead-lettered once. */
  deadLettered(entryId: string): string;
}

export function runKeys(prefix: string, runId: string): RunKeys {
  const base = `${prefix}:run:{${runId}}`;
  return {
    events: `${base}:events`,
    deadLetter: `${base}:dead`,
    started: `${base}:started`,
    claim: (eventId, interactionId) => `${base}:claim:${eventId}:${interactionId}`,
    deadLettered: (entryId) => `${base}:dead:${entryId}`,
  };
}
