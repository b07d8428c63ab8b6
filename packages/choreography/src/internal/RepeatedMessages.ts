/** The recent times of one (agent, message) pair. */
interface MessageTrack {
  /**
   * The times this message was recorded since its last report, at most `threshold` of them: grown as
   * records arrive, then used as a ring whose oldest entry is at `next`.
   */
  readonly times: number[];
  next: number;
  latest: number;
}

/**
 * Counts repeats of each (agent, message) pair within a sliding window, for `LivelockDetector`'s
 * `REPEATED_MESSAGE`: memory bounded by the pairs recorded within one window.
 *
 * @internal
 */
export class RepeatedMessages {
  readonly #threshold: number;
  readonly #windowMs: number;
  #tracks = new Map<string, MessageTrack>();

  constructor(threshold: number, windowMs: number) {
    this.#threshold = threshold;
    this.#windowMs = windowMs;
  }

  /** How many pairs are remembered. */
  get size(): number {
    return this.#tracks.size;
  }

  /**
   * Records the message at `now`; true when it makes `threshold` repeats within the window (the
   * pair's count then starts over).
   */
  record(agentId: string, message: string, now: number): boolean {
    this.forgetBefore(now);
    // Length-prefixed, so no (agent, message) pair can spell another's key, whatever characters they hold.
    const key = `${agentId.length}:${agentId}${message}`;
    const limit = this.#threshold;
    let track = this.#tracks.get(key);
    if (track === undefined) track = { times: [], next: 0, latest: now };
    else this.#tracks.delete(key);
    // Re-inserted on every record, so the Map iterates from the least recently recorded message.
    this.#tracks.set(key, track);
    track.latest = now;
    const { times } = track;
    if (times.length < limit) times.push(now);
    else {
      times[track.next] = now;
      track.next = (track.next + 1) % limit;
    }
    if (times.length === limit && now - (times[track.next] as number) <= this.#windowMs) {
      times.length = 0;
      track.next = 0;
      return true;
    }
    return false;
  }

  /** Drops messages last recorded more than the window ago; they can no longer be part of a repeat. */
  forgetBefore(now: number): void {
    for (const [key, track] of this.#tracks) {
      if (now - track.latest <= this.#windowMs) return;
      this.#tracks.delete(key);
    }
  }

  /** Forgets everything. */
  clear(): void {
    this.#tracks = new Map();
  }
}
