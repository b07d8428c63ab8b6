import { CoordinationError } from './CoordinationError';

/**
 * A resumed durable run did not do what its journal says it did at one place: a different agent, a
 * different input, a different event, a different root name or input, an end before a recorded call it
 * no longer makes, or anything at all past the end of a finished run.
 *
 * @remarks
 * Resuming re-runs the run's code and answers finished calls from the journal. That is only sound when
 * the code makes the same calls, in the same order, with the same inputs, as when the journal was
 * written. When it does not (the program changed, or it decided what to call from `Math.random()`, the
 * clock or outside state), mixing recorded answers with new calls would give a run that never happened,
 * so the whole run fails with this error instead and nothing more is journaled: the journal can still be
 * resumed by the code that wrote it. A body or nested run that ends (completes or fails) before reaching
 * again a call, question or nested run its journal records right under it fails the same way, at the
 * first such place (not for one under an agent call, nor for one the run cancelled before it gave
 * anything). A run whose root `run-end` is journaled is never extended: resumed, it calls no agent and asks
 * nobody, and code that would do anything the journal does not hold errors its events with this error
 * after the journal, which still ends with the recorded `run-end`. `placeKey` names the place (for
 * example `run/2/0`); `recorded` and `live` describe what the journal holds there and what the code did
 * (short previews). Not retryable.
 *
 * @example
 * ```ts
 * import { RunDivergenceError } from '@rxagents/core';
 *
 * const error = new RunDivergenceError('support-42', 'run/1', 'agent "billing", input "Refund"', 'agent "sales", input "Refund"');
 * console.log(error.code, error.placeKey); // RUN_DIVERGED run/1
 * ```
 */
export class RunDivergenceError extends CoordinationError {
  /** The run. */
  readonly runId: string;
  /** The place where the code and the journal disagree. */
  readonly placeKey: string;
  /** What the journal holds at that place. */
  readonly recorded: string;
  /** What the code did there. */
  readonly live: string;

  constructor(runId: string, placeKey: string, recorded: string, live: string) {
    super('RUN_DIVERGED', `Run "${runId}" diverged from its journal at "${placeKey}": recorded ${recorded}, now ${live}`, {
      context: { runId, placeKey, recorded, live },
    });
    this.runId = runId;
    this.placeKey = placeKey;
    this.recorded = recorded;
    this.live = live;
  }
}
