import { CoordinationError } from '@rxagents/core';

/**
 * Why a run registry let go of a run: its `ttlMs` passed, it made room for a new run (`maxRuns`), or the
 * registry was closed.
 *
 * @example
 * ```ts
 * import type { RunForgottenReason } from '@rxagents/web';
 *
 * const reason: RunForgottenReason = 'expired';
 * console.log(reason); // expired
 * ```
 */
export type RunForgottenReason = 'expired' | 'evicted' | 'closed';

/**
 * A run registry let go of a run while a viewer was still reading it: sent to that viewer as an
 * `event: error` frame with code `RUN_FORGOTTEN` before its stream closes, so nothing keeps the run's
 * events in memory once the registry has forgotten them. Not retryable: the registry answers `404` for
 * the run from then on.
 *
 * @example
 * ```ts
 * import { RunForgottenError } from '@rxagents/web';
 *
 * const error = new RunForgottenError('expired');
 * console.log(error.code, error.reason); // RUN_FORGOTTEN expired
 * ```
 */
export class RunForgottenError extends CoordinationError {
  constructor(
    /** Why the registry let the run go. */
    readonly reason: RunForgottenReason,
  ) {
    super('RUN_FORGOTTEN', `The run is no longer kept (${reason})`, { context: { reason } });
  }
}
