interface StateTrack {
  current: string;
  previous: string | undefined;
  alternations: number;
}

/**
 * Counts each agent's back-and-forth state changes, for `LivelockDetector`'s `OSCILLATING_STATE`.
 *
 * @internal
 */
export class StateOscillations {
  readonly #threshold: number;
  #tracks = new Map<string, StateTrack>();

  constructor(threshold: number) {
    this.#threshold = threshold;
  }

  /**
   * Records the agent's state; returns the two states it alternated between when that makes
   * `threshold` alternations in a row (the count then starts over), else `undefined`.
   */
  record(agentId: string, state: string): readonly [string, string] | undefined {
    const track = this.#tracks.get(agentId);
    if (track === undefined) {
      this.#tracks.set(agentId, { current: state, previous: undefined, alternations: 0 });
      return undefined;
    }
    if (state === track.current) return undefined;
    track.alternations = state === track.previous ? track.alternations + 1 : 1;
    track.previous = track.current;
    track.current = state;
    if (track.alternations < this.#threshold) return undefined;
    track.alternations = 0;
    return [track.previous, track.current];
  }

  /** Forgets everything. */
  clear(): void {
    this.#tracks = new Map();
  }
}
