import { type Observable, takeLast } from 'rxjs';
import { traceRun, type RunContext, type RunOutcome } from '@rxagents/core';

/**
 * `traceRun` for a primitive that gives one result: the result is passed on once the node has ended (after
 * its `run-end`), not before. Passed on first, a consumer that takes it and leaves at once (`first()`,
 * `take(1)`, `firstValueFrom`) unsubscribed the node before the body's completion reached it, and the node
 * ended as cancelled although its result had been delivered.
 */
export function traceResult<T>(run: RunContext, name: string, input: string, body: (run: RunContext | undefined) => Observable<T>, describe: (value: T) => RunOutcome): Observable<T> {
  return traceRun(run, name, input, body, describe).pipe(takeLast(1));
}
