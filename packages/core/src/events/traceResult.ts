import { type Observable, take, takeLast } from 'rxjs';
import type { RunContext } from './RunContext';
import type { RunOutcome } from './RunOutcome';
import { checkTrace, traceRun } from './traceRun';

/**
 * {@link traceRun} for a primitive that gives one result: the result is passed on once the node has ended
 * (after its `run-end`), not as the body gives it.
 *
 * @remarks
 * Passed on at once, a result taken by a consumer that leaves at once (`first()`, `take(1)`,
 * `firstValueFrom`) unsubscribes the node before the body's completion reaches it, and the node ends as
 * cancelled although its result was delivered. With this, such a consumer leaves a completed node. Use it
 * for an `execute$` that emits one result; use `traceRun` for a body whose values stream (the node's
 * values are then passed on as they come). Without `run` it returns `body(undefined)` unchanged.
 *
 * The body's first value is the result: the body is unsubscribed at it and the node ends with it, so a
 * body that gives its result and stays subscribed ends its node as it would have ended without a run,
 * where a one-result consumer takes that first value and leaves. A body that completes without a value
 * fails the node, as with `traceRun`.
 *
 * @param run - The run to report into, or `undefined`.
 * @param name - What the node is, for example `handoff` or `debate`.
 * @param input - The node's input, as `run-start` says it.
 * @param body - The node's work; receives the node's context to pass to what it calls.
 * @param describe - Reads the outcome `run-end` reports from the result.
 * @returns The body's first value, after the node's `run-end`.
 *
 * @example
 * ```ts
 * import { asyncScheduler, first, of } from 'rxjs';
 * import { traceResult, type RunContext, type RunEvent } from '@rxagents/core';
 *
 * const seen: RunEvent[] = [];
 * const run: RunContext = { runId: 'run-1', callId: null, parentCallId: null, scheduler: asyncScheduler, emit: (event) => seen.push(event) };
 * traceResult(run, 'greeting', 'Ada', () => of('Hello, Ada'), (output) => ({ success: true, output }))
 *   .pipe(first())
 *   .subscribe(() => console.log(seen.at(-1)?.type)); // run-end
 * ```
 */
export function traceResult<T>(
  run: RunContext | undefined,
  name: string,
  input: string,
  body: (run: RunContext | undefined) => Observable<T>,
  describe: (value: T) => RunOutcome,
): Observable<T> {
  checkTrace('traceResult', run, name, input, body, describe);
  if (run === undefined) return body(undefined);
  return traceRun(run, name, input, (node) => body(node).pipe(take(1)), describe).pipe(takeLast(1));
}
