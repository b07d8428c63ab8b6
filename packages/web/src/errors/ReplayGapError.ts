import { CoordinationError } from '@rxagents/core';

/**
 * A viewer asked for events that a run registry no longer keeps (older than its `replayLimit`): sent to
 * the viewer as an `event: error` frame with code `REPLAY_GAP`, after which its stream closes.
 *
 * @example
 * ```ts
 * import { ReplayGapError } from '@rxagents/web';
 *
 * const error = new ReplayGapError(5, 10_000);
 * console.log(error.code, error.message); // REPLAY_GAP Event 5 is no longer kept (the oldest kept is 10000)
 * ```
 */
export class ReplayGapError extends CoordinationError {
  constructor(
    /** The id of the first event the viewer needed. */
    readonly wanted: number,
    /** The id of the oldest event still kept. */
    readonly oldest: number,
  ) {
    super('REPLAY_GAP', `Event ${wanted} is no longer kept (the oldest kept is ${oldest})`, { context: { wanted, oldest } });
  }
}
