import { map, type Observable, race, type SchedulerLike } from 'rxjs';
import { delayTimer } from '@rxagents/core';
import { ExecutionTimeoutError } from '../errors/ExecutionTimeoutError';
import type { TerminationDecision } from '../termination/TerminationDecision';

/**
 * A run's overall limit (`timeout`, in ms) and the scheduler time it ends at. The driver, the
 * conversation orchestrator and the FanIn/Barrier strategies all bound a run with one of these, so a
 * timed-out run reads the same (`failed`, {@link ExecutionTimeoutError}) whichever backend ran it.
 */
export interface RunDeadline {
  readonly timeoutMs: number;
  readonly endsAt: number;
}

type Stop = Exclude<TerminationDecision, { type: 'continue' }>;

/** A run's overall deadline, or `undefined` when it has none (no `timeout`, or `Infinity`). */
export function overallDeadline(timeoutMs: number | undefined, startedAt: number): RunDeadline | undefined {
  return timeoutMs === undefined || timeoutMs === Infinity ? undefined : { timeoutMs, endsAt: startedAt + timeoutMs };
}

/** Emits once the deadline has passed (at once when it already has). */
export function untilDeadline(deadline: RunDeadline, scheduler: SchedulerLike): Observable<0> {
  return delayTimer(Math.max(0, deadline.endsAt - scheduler.now()), scheduler);
}

/** The decision that ends a run whose deadline passed: `failed` with {@link ExecutionTimeoutError}. */
export function timedOut(pattern: string, deadline: RunDeadline): Stop {
  return { type: 'failed', reason: `timed out after ${deadline.timeoutMs} ms`, error: new ExecutionTimeoutError(pattern, deadline.timeoutMs) };
}

/** The timed-out decision when the deadline has passed by now, else `undefined`. */
export function passedDeadline(deadline: RunDeadline | undefined, scheduler: SchedulerLike, pattern: string): Stop | undefined {
  return deadline !== undefined && scheduler.now() >= deadline.endsAt ? timedOut(pattern, deadline) : undefined;
}

/**
 * A termination decision, or the timed-out one if the deadline passes first (a judge that answers
 * late cannot hold a run past its `timeout`).
 */
export function decideBeforeDeadline(
  decision$: Observable<TerminationDecision>,
  deadline: RunDeadline | undefined,
  scheduler: SchedulerLike,
  pattern: string,
): Observable<TerminationDecision> {
  return deadline === undefined ? decision$ : race(decision$, untilDeadline(deadline, scheduler).pipe(map(() => timedOut(pattern, deadline))));
}
