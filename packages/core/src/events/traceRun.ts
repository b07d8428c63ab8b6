import { Observable, type Subscriber, Subscription } from 'rxjs';
import { isRunContext } from '../configRules';
import { ConfigError } from '../errors/ConfigError';
import { abortError } from '../internal/abortError';
import { fitsAsJson } from '../internal/splitText';
import { MAX_TEXT_FIELD_LENGTH } from '../limits';
import { RunScope } from '../internal/RunScope';
import { newRunId } from './ids';
import type { RunContext } from './RunContext';
import type { RunOutcome } from './RunOutcome';
import { type SerializedError, serializeError } from './SerializedError';

/**
 * Runs `body` as a node of `run`'s tree: a `run-start` event, the body's own events under the node, then
 * a `run-end` event with the outcome `describe` reads from the body's last value.
 *
 * @remarks
 * This is how a primitive (a chain, a debate, a choreography) reports itself inside a run. Without a
 * `run` (nobody is watching) it returns `body(undefined)` unchanged and costs nothing. The node's id is a
 * new unguessable id; `body` receives a context whose `callId` is it, so everything `body` calls nests
 * under the node. The values of `body` pass through unchanged. `run-end` says `success: false` with the
 * error when `body` errors or throws (the error still reaches the subscriber); an output or an input
 * longer than `MAX_TEXT_FIELD_LENGTH` characters as JSON is not repeated (`outputOmitted: true`,
 * `inputOmitted: true`); nothing is emitted
 * after `run-end` (what the body still reports through its context then, from work that ignored its
 * unsubscription, is dropped); unsubscribing before the end emits `run-end` with an `AbortError`-named error, so a
 * view never shows a node running forever.
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
  checkTrace('traceRun', run, name, input, body, describe);
  if (run === undefined) return body(undefined);
  return new Observable<T>((subscriber) => {
    const node = new NodeSubscription(run, name, input, subscriber, describe);
    try {
      body(node.context).subscribe(node);
    } catch (error) {
      // `body` is user code: a throw (or a value that is not an Observable) fails the node like an error would.
      node.error(error);
    }
    node.settleIfEndedWhileSubscribing();
    return () => node.cancel();
  });
}

/**
 * A node's subscription to its body, and the body's observer: records the last value and ends the node.
 * Being a `Subscription` that is also an `Observer`, RxJS hands it the body's notifications directly
 * (no extra wrapper per value), which matters when a body forwards every token of a long reply.
 */
class NodeSubscription<T> extends Subscription {
  readonly context: RunContext;
  private readonly callId: string;
  private readonly startedAt: number;
  /** Closed once this node, or a node above it, ended: nothing more is said under it. */
  private readonly scope: RunScope;
  private stopped = false;
  private ended = false;
  private endedWhileSubscribing = false;
  private subscribed = false;
  private hasLast = false;
  private last: T | undefined = undefined;
  private failure: { error: unknown } | undefined = undefined;
  private outcome: RunOutcome | undefined = undefined;

  constructor(
    private readonly run: RunContext,
    private readonly name: string,
    input: string,
    private readonly downstream: Subscriber<T>,
    private readonly describe: (value: T) => RunOutcome,
  ) {
    super();
    const { runId, scheduler, pace, journal } = run;
    // In a durable run a node is known by its place; elsewhere by a new unguessable id.
    const place = journal === undefined ? undefined : journal.host.enterNode(journal, name);
    this.callId = place === undefined ? newRunId() : place.callId;
    this.startedAt = scheduler.now();
    // What the body reports after the node ended (work that ignored its unsubscription) is dropped.
    this.scope = RunScope.under(run);
    this.context =
      place === undefined
        ? { runId, callId: this.callId, parentCallId: run.callId, scheduler, emit: this.scope.emit, pace }
        : { runId, callId: this.callId, parentCallId: run.callId, scheduler, emit: this.scope.emit, pace, journal: place.journal };
    if (fitsAsJson(input, MAX_TEXT_FIELD_LENGTH)) this.scope.emit({ type: 'run-start', runId, callId: this.callId, parentCallId: run.callId, at: this.startedAt, name, input });
    else this.scope.emit({ type: 'run-start', runId, callId: this.callId, parentCallId: run.callId, at: this.startedAt, name, input: '', inputOmitted: true });
  }

  next(value: T): void {
    if (this.stopped) return;
    this.hasLast = true;
    this.last = value;
    this.downstream.next(value);
  }

  error(error: unknown): void {
    if (this.stopped) return;
    this.stopped = true;
    this.failure = { error };
    this.outcome = { success: false, error };
    this.settle();
  }

  complete(): void {
    if (this.stopped) return;
    this.stopped = true;
    if (!this.hasLast) this.outcome = { success: false, error: new Error(`${this.name} ended without a result`) };
    else {
      try {
        this.outcome = this.describe(this.last as T);
      } catch (error) {
        // `describe` is user code: a throw fails the node instead of leaving it running.
        this.failure = { error };
        this.outcome = { success: false, error };
      }
    }
    this.settle();
  }

  settleIfEndedWhileSubscribing(): void {
    this.subscribed = true;
    if (this.endedWhileSubscribing) this.finish();
  }

  /** The subscriber left before the body ended: the node ends as cancelled, after the body stopped. */
  cancel(): void {
    this.unsubscribe();
    if (!this.ended) this.end({ success: false, error: abortError(`${this.name} was cancelled`) });
  }

  // `run-end` and the subscriber's own end wait until the body is torn down, so whatever the body
  // cancels on its way out (a call cut short by `take`, say) is reported before the node ends.
  private settle(): void {
    if (this.subscribed) this.finish();
    else this.endedWhileSubscribing = true;
  }

  private finish(): void {
    this.unsubscribe();
    this.end(this.outcome as RunOutcome);
    if (this.failure !== undefined) this.downstream.error(this.failure.error);
    else this.downstream.complete();
  }

  private end(outcome: RunOutcome): void {
    if (this.ended) return;
    this.ended = true;
    const { runId, scheduler } = this.run;
    const at = scheduler.now();
    const event: {
      type: 'run-end';
      runId: string;
      callId: string;
      parentCallId: string | null;
      at: number;
      success: boolean;
      output?: string;
      outputOmitted?: true;
      error?: SerializedError;
      durationMs: number;
    } = { type: 'run-end', runId, callId: this.callId, parentCallId: this.run.callId, at, success: outcome.success, durationMs: at - this.startedAt };
    // A long output is not repeated: its text is in the deltas of the calls that wrote it.
    if (outcome.output !== undefined) {
      if (fitsAsJson(outcome.output, MAX_TEXT_FIELD_LENGTH)) event.output = outcome.output;
      else event.outputOmitted = true;
    }
    if (outcome.error !== undefined) event.error = serializeError(outcome.error);
    this.scope.emit(event);
    this.scope.close();
  }
}

function describeString(value: unknown): RunOutcome {
  return typeof value === 'string' ? { success: true, output: value } : { success: true };
}

/** Refuses what {@link traceRun} and `traceResult` refuse: a run that is not a run context, a name or input that is not a string, a body or describe that is not a function (cheap checks: this runs per node). */
export function checkTrace(subject: string, run: unknown, name: unknown, input: unknown, body: unknown, describe: unknown): void {
  if (run !== undefined && !isRunContext(run)) throw new ConfigError(subject, [{ path: 'run', rule: 'must be a run context ({ runId, callId, scheduler, emit }) or undefined', received: run }]);
  if (typeof name !== 'string') throw new ConfigError(subject, [{ path: 'name', rule: 'must be a string', received: name }]);
  if (typeof input !== 'string') throw new ConfigError(subject, [{ path: 'input', rule: 'must be a string', received: input }]);
  if (typeof body !== 'function') throw new ConfigError(subject, [{ path: 'body', rule: 'must be a function', received: body }]);
  if (typeof describe !== 'function') throw new ConfigError(subject, [{ path: 'describe', rule: 'must be a function', received: describe }]);
}
