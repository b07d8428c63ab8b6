/**
 * How a run's result reads in its `run-end` event: whether it succeeded, its text output, its error.
 *
 * @example
 * ```ts
 * import type { RunOutcome } from '@rxagents/core';
 *
 * const outcome: RunOutcome = { success: false, error: new Error('no agent agreed') };
 * console.log(outcome.success); // false
 * ```
 */
export interface RunOutcome {
  /** Whether the run did what it was asked. */
  readonly success: boolean;
  /** The run's text output, when it has one. */
  readonly output?: string;
  /** Why it failed, when it did (serialised into the event). */
  readonly error?: unknown;
}
