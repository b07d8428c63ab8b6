import type { SchedulerLike } from 'rxjs';
import type { RunEvent } from './RunEvent';
import type { RunJournal } from './RunJournal';

/**
 * Where a run's events go, and which node of the run's tree new events nest under.
 *
 * @remarks
 * A run passes its context down with every agent call (as `ChatOptions.run`), so an agent that itself
 * runs a pattern or hands off can pass it on and its inner events appear in the outer run, under its
 * call. A plain agent ignores it. `emit` is called synchronously, in the order things happen; it must not
 * throw (the run reports what a consumer throws instead of failing the run). The context an agent call or a
 * nested run hands on stops passing events once its node ended: an agent that ignores its abort and
 * reports later (usage, a custom event, a nested run) says nothing more, as its late chunks say nothing.
 *
 * @example
 * ```ts
 * import { asyncScheduler } from 'rxjs';
 * import type { RunContext, RunEvent } from '@rxagents/core';
 *
 * const seen: RunEvent[] = [];
 * const run: RunContext = { runId: 'run-1', callId: null, parentCallId: null, scheduler: asyncScheduler, emit: (event) => seen.push(event) };
 * console.log(run.runId); // run-1
 * ```
 */
export interface RunContext {
  /** The run's id, the same on every event of its tree; unguessable when the run created it. */
  readonly runId: string;
  /** The node new events nest under: the agent call or nested run this context was given to; `null` above the root. */
  readonly callId: string | null;
  /** The node above `callId` (`null` at the root): events that belong to `callId` carry it as their `parentCallId`. */
  readonly parentCallId: string | null;
  /** The run's clock: every event's `at` is `scheduler.now()`. */
  readonly scheduler: SchedulerLike;
  /** Delivers one event to the run's consumers. */
  readonly emit: (event: RunEvent) => void;
  /**
   * Set when a slow consumer paces the run: returns a Promise while the run should wait (its events are
   * not being read fast enough), `undefined` when it may go on. Agent calls wait on it before they start
   * and between the chunks they pull from an agent that returns an `AsyncIterable`.
   */
  readonly pace?: (() => PromiseLike<void> | undefined) | undefined;
  /**
   * Set in a run started with a store (a durable run): where this node's next children go and what the
   * run's journal holds for them. Made by the toolkit only; keep it when you copy a context (`{ ...run }`).
   */
  readonly journal?: RunJournal | undefined;
}
