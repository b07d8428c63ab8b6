import { Observable, type Subscription } from 'rxjs';
import { abortError } from '../internal/abortError';
import { newRunId } from './ids';
import type { RunContext } from './RunContext';
import type { RunOutcome } from './RunOutcome';
import { serializeError } from './SerializedError';

/**
 * Runs `body` as a node of `run`'s tree: a `run-start` event, the body's own events under the node, then
 * a `run-end` event with the outcome `describe` reads from the body's last value.
 *
 * @remarks
 * This is how a primitive (a chain, a debate, a choreography) reports itself inside a run. Without a
 * `run` (nobody is watching) it returns `body(undefined)` unchanged and costs nothing. The node's id is a
 * new unguessable id; `body` receives a context whose `callId` is it, so everything `body` calls nests
 * under the node. The values of `body` pass through unchanged. `run-end` says `success: false` with the
 * error when `body` errors (the error still reaches the subscriber), and nothing is emitted after
 * `run-end`; unsubscribing before the end emits `run-end` with an `AbortError`-named error, so a view
 * never shows a node running forever.
 *
 * @param run - The run to report into, or `undefined`.
 * @param name - What the node is, for example `debate` or `chain`.
 * @param input - What the node was asked.
 * @param body - The work; receives the node's context (or `undefined`).
 * @param describe - Reads the outcome from the body's last value; by default a string value is a
 *   successful output.
 * @returns The body's values.
 *
 * @example
 * ```ts
 * import { asyncScheduler, of } from 'rxjs';
 * import { traceRun, type RunContext, type RunEvent } from '@rxagents/core';
 *
 * const seen: RunEvent[] = [];
 * const run: RunContext = { runId: 'run-1', callId: null, parentCallId: null, scheduler: asyncScheduler, emit: (event) => seen.push(event) };
 * traceRun(run, 'greeting', 'Ada', () => of('Hello, Ada')).subscribe();
 * console.log(seen.map((event) => event.type)); // [ 'run-start', 'run-end' ]
 * ```
 */
export function traceRun<T>(
  run: RunContext | undefined,
  name: string,
  input: string,
  body: (run: RunContext | undefined) => Observable<T>,
  describe: (value: T) => RunOutcome = describeString,
): Observable<T> {
  if (run === undefined) return body(undefined);
  return new Observable<T>((subscriber) => {
    const { runId, scheduler, emit, pace } = run;
    const callId = newRunId();
    const parentCallId = run.callId;
    const startedAt = scheduler.now();
    let hasLast = false;
    let last: T | undefined;
    const end = (outcome: RunOutcome): void => {
      const at = scheduler.now();
      const event: {
        type: 'run-end';
        runId: string;
        callId: string;
        parentCallId: string | null;
        at: number;
        success: boolean;
        output?: string;
        error?: ReturnType<typeof serializeError>;
        durationMs: number;
      } = { type: 'run-end', runId, callId, parentCallId, at, success: outcome.success, durationMs: at - startedAt };
      if (outcome.output !== undefined) event.output = outcome.output;
      if (outcome.error !== undefined) event.error = serializeError(outcome.error);
      emit(event);
    };
    emit({ type: 'run-start', runId, callId, parentCallId, at: startedAt, name, input });
    // `run-end` and the subscriber's own end wait until the body is torn down, so whatever the body
    // cancels on its way out (a call cut short by `take`, say) is reported before the node ends.
    let outcome: RunOutcome | undefined;
    let failure: { error: unknown } | undefined;
    let subscription: Subscription | undefined;
    let endedWhileSubscribing = false;
    const finish = (): void => {
      (subscription as Subscription).unsubscribe();
      end(outcome as RunOutcome);
      if (failure !== undefined) subscriber.error(failure.error);
      else subscriber.complete();
    };
    const settle = (): void => {
      if (subscription === undefined) endedWhileSubscribing = true;
      else finish();
    };
    subscription = body({ runId, callId, parentCallId, scheduler, emit, pace }).subscribe({
      next: (value) => {
        hasLast = true;
        last = value;
        subscriber.next(value);
      },
      error: (error: unknown) => {
        failure = { error };
        outcome = { success: false, error };
        settle();
      },
      complete: () => {
        outcome = hasLast ? describe(last as T) : { success: false, error: new Error(`${name} ended without a result`) };
        settle();
      },
    });
    if (endedWhileSubscribing) finish();
    return () => {
      (subscription as Subscription).unsubscribe();
      if (outcome === undefined) {
        outcome = { success: false, error: abortError(`${name} was cancelled`) };
        end(outcome);
      }
    };
  });
}

function describeString(value: unknown): RunOutcome {
  return typeof value === 'string' ? { success: true, output: value } : { success: true };
}
