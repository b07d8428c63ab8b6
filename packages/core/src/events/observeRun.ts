import { asyncScheduler, Observable, type Observer, type SchedulerLike, type Subscriber, Subscription, tap } from 'rxjs';
import * as z from 'zod';
import * as configRules from '../configRules';
import { jobClock } from '../internal/jobClock';
import { parseConfig } from '../parseConfig';
import { emitCustom } from './emitCustom';
import { newRunId } from './ids';
import type { RunContext } from './RunContext';
import type { RunEvent } from './RunEvent';
import type { RunOutcome } from './RunOutcome';
import { traceRun } from './traceRun';
import { DurableSession } from '../internal/durable/DurableSession';
import type { RunStore } from '../store/RunStore';

/**
 * Options of {@link observeRun}.
 *
 * @example
 * ```ts
 * import type { ObserveRunOptions } from '@rxagents/core';
 *
 * const options: ObserveRunOptions<string> = { runId: 'support-42' };
 * console.log(options.runId); // support-42
 * ```
 */
export interface ObserveRunOptions<T> {
  /**
   * The clock for every event's `at`. Defaults to `asyncScheduler`. On the wall clock, events that happen
   * in one synchronous stretch of work share its time (the clock is read once per job of the event loop).
   */
  readonly scheduler?: SchedulerLike;
  /** The run's id. Defaults to a new unguessable id; pass your own only if it is unguessable too. */
  readonly runId?: string;
  /** Reads the outcome from the run's last value; by default a string is a successful output. */
  readonly describe?: (value: T) => RunOutcome;
  /** Lets a slow reader pace the run; see {@link RunContext.pace} and {@link runEventStream}, which provides it. */
  readonly pace?: RunContext['pace'];
  /**
   * Makes the run durable: its events are journaled in this store under `runId`, and when the store
   * already holds `runId`'s journal the run is resumed from it (finished agent calls are answered from the
   * journal, the others run again). See the durable runs guide (`docs/durable.md`).
   */
  readonly store?: RunStore;
  /**
   * How long the run's lease in `store` lasts unless renewed, in ms; it is renewed every third of it on
   * `scheduler`. Defaults to 30,000. Used only with `store`.
   */
  readonly leaseTtlMs?: number;
  /**
   * The stable identity of the process running the run (a registry's or a service's name, the same
   * across its restarts), recorded with the run's lease in `store`: a lease held under the same owner is
   * taken back at once instead of after it lapses, so a restarted process resumes its own runs without
   * waiting, and the process it replaced, should it still run, is fenced out. Give each process that runs
   * at the same time an owner of its own. Used only with `store`.
   */
  readonly leaseOwner?: string;
}

/** The default of {@link ObserveRunOptions.leaseTtlMs}: 30 s. */
const DEFAULT_LEASE_TTL_MS = 30_000;

/**
 * Runs `body` as a new run and emits everything it says, as {@link RunEvent}s: a cold Observable, one run
 * per subscription.
 *
 * @remarks
 * The run is the root node of its tree: `run-start`, then every event of `body` (agent calls, deltas,
 * nested runs) as it happens, then `run-end`, then completion. A failure of `body` is reported by
 * `run-end` (`success: false` and the serialised error) and the stream still completes normally, so one
 * failed run does not tear down a UI. Unsubscribing cancels the run: every agent call in flight gets
 * its `AbortSignal` fired. Events are delivered synchronously as they happen, nothing is buffered here;
 * for a reader that is slower than the run (a socket, a UI), read it through {@link runEventStream}.
 *
 * Agent calls join the run only through the context `body` receives (`{ run }` on `invoke$`, `stream`,
 * `invoke`, `callAgent`, or a primitive's `events$`): nothing is found implicitly. A `body` that declares
 * no parameter cannot pass it, so when such a body ends (completes or fails) having reported nothing, the
 * run says so before `run-end`: a `custom` event named `run-context-unused` whose `data.message` names
 * the run and shows the fix. Its agent calls ran, unseen; `(run) => invoke$(agent, input, { run })` reports them.
 *
 * With a `store` the run is durable: its events are its journal, appended to the store (group commit:
 * one append in flight, carrying what queued meanwhile; the run waits before new agent calls while more
 * than 4,096 events wait for the store), and its nodes are named by their place (`run`, `run/0`, ...)
 * instead of random ids. When the store already holds `runId`'s journal, the run resumes: the events$
 * first emit the journal, then the body runs again; an agent call whose outcome is recorded is answered
 * from it without calling the agent, a call that was in flight runs again (closed first with
 * `CallInterruptedError`), and code that does not do what the journal says fails the run with
 * `RunDivergenceError` (a body that ends before making a recorded call again too). A run whose root
 * `run-end` is journaled is never extended: its events are its journal, no agent is called, and code
 * that would go past the journal's end errors the events with `RunDivergenceError` after it. The run holds the store's lease (`leaseTtlMs`, renewed every third of it on
 * `scheduler`): a second process resuming it gets `RunLeasedError`. What the store refuses before the run
 * starts (its lease, a read, a root name or input other than the recorded ones) errors the events; a
 * failed append or a lost lease once it runs ends it with a `run-end` carrying that error. Unsubscribing
 * stops the run here as a crash would: the journal keeps what it had and the run can be resumed. See the
 * durable runs guide.
 *
 * @param name - What the run is, for example `support`.
 * @param input - What it was asked.
 * @param body - The run's work; receives the context to pass to agent calls and primitives.
 * @param options - Clock, run id, outcome reader.
 * @returns The run's events.
 * @throws `ConfigError` at once when `name` or `input` is not a string, `body` is not a function, or an
 *   option is unknown or invalid (a blank `runId`, a `scheduler` without `now()` and `schedule()`, a
 *   `store` without the run store's methods, a `leaseTtlMs` under 3 ms).
 *
 * @example
 * ```ts
 * import { from } from 'rxjs';
 * import { defineAgent, invoke$, observeRun } from '@rxagents/core';
 *
 * const writer = defineAgent('writer', () => from(['Once ', 'upon ', 'a time']));
 * observeRun('story', 'Tell a story', (run) => invoke$(writer, 'Tell a story', { run })).subscribe((event) => {
 *   if (event.type === 'text-delta') console.log(event.delta);
 * });
 * ```
 *
 * @example
 * ```ts
 * import { lastValueFrom, toArray } from 'rxjs';
 * import { defineAgent, invoke$, MemoryRunStore, observeRun } from '@rxagents/core';
 *
 * let calls = 0;
 * const writer = defineAgent('writer', async () => `draft ${++calls}`);
 * const store = new MemoryRunStore();
 * const run = () => observeRun('story', 'go', (run) => invoke$(writer, 'go', { run }), { store, runId: 'story-1' });
 * await lastValueFrom(run().pipe(toArray()));
 * const again = await lastValueFrom(run().pipe(toArray())); // answered from the journal
 * console.log(calls, again.at(-1)?.type); // 1 run-end
 * ```
 */
export function observeRun<T>(name: string, input: string, body: (run: RunContext) => Observable<T>, options: ObserveRunOptions<T> = {}): Observable<RunEvent> {
  checkRun(name, input, body, options);
  return new Observable<RunEvent>((subscriber) => {
    const { scheduler = asyncScheduler, runId = newRunId(), describe, pace, store } = options;
    let reported = 0;
    const root: RunContext = {
      runId,
      callId: null,
      parentCallId: null,
      scheduler: jobClock(scheduler),
      emit: (event) => {
        reported++;
        subscriber.next(event);
      },
      pace,
    };
    // A body without a parameter cannot have passed its context to any call: if it also reported
    // nothing, its calls (if any) ran outside the run, and a reader would see an empty run without a word.
    const run$ = body.length > 0 ? (run: RunContext) => body(run) : (run: RunContext) => {
      const before = reported;
      const warn = (): void => {
        if (reported === before) emitCustom(run, 'run-context-unused', { message: unusedMessage(name) });
      };
      return body(run).pipe(tap({ complete: warn, error: warn }));
    };
    if (store !== undefined) {
      const settings = { name, input, describe, scheduler, runId, pace, store, leaseTtlMs: options.leaseTtlMs ?? DEFAULT_LEASE_TTL_MS, leaseOwner: options.leaseOwner };
      const session = new DurableSession(subscriber, { ...settings, body: run$, reported: () => reported++ });
      session.start();
      return () => session.leave();
    }
    return traceRun(root, name, input, (run) => run$(run as RunContext), describe).subscribe(new EndOfRun(subscriber));
  });
}

function unusedMessage(name: string): string {
  return `observeRun("${name}"): the body takes no run context and reported nothing, so agent calls it made are not part of the run. Take the context and pass it on: (run) => invoke$(agent, input, { run }).`;
}

const OPTION_KEYS = new Set(['scheduler', 'runId', 'describe', 'pace', 'store', 'leaseTtlMs', 'leaseOwner']);

const ObserveRunArgumentsSchema = z.strictObject({
  name: z.string({ error: 'must be a string' }),
  input: z.string({ error: 'must be a string' }),
  body: configRules.function(),
  options: z.strictObject(
    {
      scheduler: configRules.scheduler().optional(),
      runId: configRules.id().optional(),
      describe: configRules.function().optional(),
      pace: configRules.function().optional(),
      store: configRules.runStore().optional(),
      leaseTtlMs: configRules.leaseTtlMs().optional(),
      leaseOwner: configRules.leaseOwner().optional(),
    },
    { error: 'must be an object' },
  ),
});

// A fast check first (every runnable's events$ comes through here); zod only to word the error. Every
// event carries the name, input and run id, so a wrong one would make every event fail RunEventSchema.
function checkRun(name: unknown, input: unknown, body: unknown, options: ObserveRunOptions<never>): void {
  let valid = typeof name === 'string' && typeof input === 'string' && typeof body === 'function' && typeof options === 'object' && options !== null;
  if (valid) {
    for (const key in options) if (!OPTION_KEYS.has(key)) valid = false;
    const { scheduler, runId, describe, pace, store, leaseTtlMs, leaseOwner } = options;
    if (scheduler !== undefined && !configRules.isScheduler(scheduler)) valid = false;
    if (runId !== undefined && !(typeof runId === 'string' && runId.trim() !== '')) valid = false;
    if (describe !== undefined && typeof describe !== 'function') valid = false;
    if (pace !== undefined && typeof pace !== 'function') valid = false;
    if (store !== undefined && !configRules.isRunStore(store)) valid = false;
    if (leaseTtlMs !== undefined && !configRules.isLeaseTtlMs(leaseTtlMs)) valid = false;
    if (leaseOwner !== undefined && !configRules.isLeaseOwner(leaseOwner)) valid = false;
  }
  if (!valid) parseConfig(ObserveRunArgumentsSchema, { name, input, body, options }, 'observeRun');
}

/** Takes the root node's values (ignored: they are in `run-end`) and its end, which completes the events. */
class EndOfRun extends Subscription implements Observer<unknown> {
  constructor(private readonly events: Subscriber<RunEvent>) {
    super();
  }

  next(): void {}

  error(): void {
    this.events.complete();
    this.unsubscribe();
  }

  complete(): void {
    this.events.complete();
    this.unsubscribe();
  }
}

/**
 * What the `events$` method of every runnable takes besides its own arguments: the pacing function a
 * slow reader gives (see {@link runEventStream}), and the store, run id and lease of a durable run.
 *
 * @remarks
 * A runnable passes these to `observeRun` as they are. A runnable whose options schema does not list
 * `store`, `runId`, `leaseTtlMs` and `leaseOwner` yet refuses them with a `ConfigError` rather than
 * ignoring them.
 *
 * @example
 * ```ts
 * import { defineAgent, invoke$, observeRun, runEventStream, type RunEventsOptions } from '@rxagents/core';
 *
 * const writer = defineAgent('writer', async () => 'Once upon a time.');
 * const start = (options: RunEventsOptions) => observeRun('story', 'go', (run) => invoke$(writer, 'go', { run }), options);
 * for await (const event of runEventStream((pace) => start({ pace }))) console.log(event.type);
 * ```
 */
export interface RunEventsOptions {
  /** Lets a slow reader pace the run; {@link runEventStream} provides it. */
  readonly pace?: RunContext['pace'];
  /** Makes the run durable in this store (see {@link ObserveRunOptions.store}); a runnable passes it to `observeRun`. */
  readonly store?: RunStore;
  /** The run's id: with `store`, the journal to write, or to resume when the store holds it (see {@link ObserveRunOptions.runId}). */
  readonly runId?: string;
  /** The lease's time to live with `store`, in ms (see {@link ObserveRunOptions.leaseTtlMs}). */
  readonly leaseTtlMs?: number;
  /** The stable identity recorded with the lease with `store` (see {@link ObserveRunOptions.leaseOwner}). */
  readonly leaseOwner?: string;
}
