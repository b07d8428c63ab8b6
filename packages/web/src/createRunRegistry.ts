import { asyncScheduler, isObservable, Subject, type Observable, type SchedulerLike } from 'rxjs';
import * as z from 'zod';
import { ConfigError, configRules, newRunId, observeRun, parseConfig, scheduleDelay, takeRunUntil, type RunContext, type RunEvent } from '@rxagents/core';
import { RunForgottenError, type RunForgottenReason } from './errors/RunForgottenError';
import { RunRegistryFullError } from './errors/RunRegistryFullError';
import { encodeFrame, eventStreamBody } from './internal/eventStreamBody';
import { RunLog } from './internal/RunLog';
import { redactError, type ExposeError } from './redactError';
import { frameMaker } from './toEventStream';
import { eventStreamHeaders } from './toEventStreamResponse';

/**
 * Options of {@link createRunRegistry}.
 *
 * @example
 * ```ts
 * import type { RunRegistryOptions } from '@rxagents/web';
 *
 * const options: RunRegistryOptions = { replayLimit: 5_000, ttlMs: 60_000, maxRuns: 100 };
 * console.log(options.maxRuns); // 100
 * ```
 */
export interface RunRegistryOptions {
  /** How many of a run's latest events are kept for viewers that join late or reconnect. Default 10,000. */
  readonly replayLimit?: number;
  /** How long a finished run stays watchable, in milliseconds. Default 300,000 (5 minutes); `Infinity` keeps it. */
  readonly ttlMs?: number;
  /** How many runs the registry holds at once (finished ones are let go first when it is full). Default 1,000. */
  readonly maxRuns?: number;
  /** Milliseconds between `: ping` comments to a waiting viewer. Default 15,000; `Infinity` for none. */
  readonly heartbeatMs?: number;
  /**
   * How long a viewer may go without reading while events wait for it, in milliseconds, before it is cut
   * off with a `VIEWER_STALLED` error frame ({@link ViewerStalledError}); the run goes on. Default 30,000;
   * `Infinity` never cuts one off.
   */
  readonly stallTimeoutMs?: number;
  /** The clock of `ttlMs`, the heartbeat, `stallTimeoutMs` and the runs started by name. Default `asyncScheduler`. */
  readonly scheduler?: SchedulerLike;
  /**
   * What viewers receive of an error (an `event: error` frame, the `error` of `call-error`, `run-end` and
   * `step` events). Default {@link redactError}: name, code, retryable and a generic message.
   */
  readonly exposeError?: ExposeError;
}

const RunRegistryOptionsSchema = z.strictObject({
  replayLimit: configRules.positiveInt().default(10_000),
  ttlMs: configRules.delayMs().default(300_000),
  maxRuns: configRules.positiveInt().default(1_000),
  heartbeatMs: configRules.timeoutMs().default(15_000),
  stallTimeoutMs: configRules.timeoutMs().default(30_000),
  scheduler: configRules.scheduler().default(asyncScheduler),
  exposeError: configRules.function<ExposeError>().default(() => redactError),
});

/**
 * Runs kept on the server, each watchable by any number of viewers over Server-Sent Events, with replay
 * for late viewers and reconnections. Made by {@link createRunRegistry}.
 *
 * @example
 * ```ts
 * import type { RunRegistry } from '@rxagents/web';
 *
 * function watch(registry: RunRegistry, runId: string, request: Request): Response {
 *   return registry.response(runId, request);
 * }
 * console.log(typeof watch); // function
 * ```
 */
export interface RunRegistry {
  /**
   * Starts a run now, as `observeRun(name, input, body)` would (its events' `runId` is the returned
   * one), and keeps it running whether or not anyone watches.
   */
  start(name: string, input: string, body: (run: RunContext) => Observable<unknown>): { readonly runId: string };
  /** Starts watching `events$` now (any run's events, for example a pattern's `events$(input)`) under a new run id. */
  start(events$: Observable<RunEvent>): { readonly runId: string };
  /**
   * A Server-Sent Events response with the run's events after the request's `Last-Event-ID` header (or
   * `?lastEventId=` query), from the start when there is none; `404` for an unknown (or expired) run,
   * `400` for an id that is not one of the run's.
   */
  response(runId: string, request: Request): Response;
  /**
   * Cancels a run: every agent's `AbortSignal` fires, and the run's events end every node still open
   * (a `call-error` per call, a `run-end` per run, innermost first, each with an `AbortError`), so every
   * viewer, late ones too, sees the run end as cancelled. `false` when it was not running.
   */
  cancel(runId: string): boolean;
  /** Whether the registry holds the run (running, or finished and not yet expired). */
  has(runId: string): boolean;
  /** Cancels every run and forgets them all, with their expiry timers (for a server shutting down, and tests). */
  close(): void;
}

/**
 * Keeps runs on the server so that browsers can watch them, join late and reconnect without losing or
 * repeating an event.
 *
 * @remarks
 * `start` begins a run at once and keeps it running independently of viewers (it is not paced: a
 * viewer never slows a run down or stops it), under an unguessable run id (`newRunId`). `response(runId,
 * request)` streams the run to one viewer as Server-Sent Events: each event's `id` is its 0-based
 * position in the run, the same for every viewer, so two viewers see identical streams and a viewer
 * that reconnects with `Last-Event-ID: n` (as {@link fromEventStream} and `EventSource` do) continues at
 * event `n + 1`. The latest `replayLimit` events are kept; a viewer that needs an older one (it joined
 * or came back too late, or reads slower than the run writes by more than that) gets an `event: error`
 * frame with code `REPLAY_GAP` ({@link ReplayGapError}) and its stream closes. Each event is encoded
 * once, when it happens, and every viewer reads those same bytes, at most 64 KiB at a time (an event
 * longer than that goes alone): a viewer costs a cursor, not a copy of the events, so the registry's
 * memory is about `replayLimit` events per run times `maxRuns`, however many viewers there are. A
 * viewer that reads nothing for `stallTimeoutMs` while events wait for it gets a `VIEWER_STALLED` frame
 * ({@link ViewerStalledError}) and its stream closes; the run goes on. A run that errors ends its
 * viewers' streams with an error frame. A cancelled one (`cancel`) ends as a run cancelled inside does:
 * a `call-error` for every call still open and a `run-end` with `success: false` for every run,
 * innermost first, each with an error named `AbortError`, then its streams close (a `runView` of them
 * shows every node `cancelled`). What a viewer receives of an error is what `exposeError` makes of it
 * (by default its name, code and a generic message, see {@link redactError}). A finished run stays
 * watchable for `ttlMs`, then the registry forgets it (`404`). At most `maxRuns` runs are held; when
 * full, the oldest finished run is let go, and when all are running `start` throws
 * {@link RunRegistryFullError}. A viewer still reading a run the registry lets go of (expired, evicted
 * or closed) gets a `RUN_FORGOTTEN` frame ({@link RunForgottenError}) and its stream closes, so no
 * viewer keeps a forgotten run's events in memory.
 *
 * @param options - Replay size, expiry, capacity, heartbeat, stall timeout, clock and what an error shows.
 * @returns An empty registry.
 * @throws `ConfigError` for a bad option.
 *
 * @example
 * ```ts
 * import { from } from 'rxjs';
 * import { defineAgent, invoke$ } from '@rxagents/core';
 * import { createRunRegistry } from '@rxagents/web';
 *
 * const writer = defineAgent('writer', () => from(['Once ', 'upon ', 'a time']));
 * const registry = createRunRegistry({ ttlMs: 60_000 });
 *
 * // POST /runs starts a run; GET /runs/:id watches it (as often as you like, from any point).
 * const { runId } = registry.start('story', 'go', (run) => invoke$(writer, 'go', { run }));
 * const request = new Request(`http://localhost/runs/${runId}`, { headers: { 'last-event-id': '2' } });
 * const text = await registry.response(runId, request).text();
 * console.log(text.split('\n\n')[0]?.split('\n')[0]); // id: 3
 * registry.close(); // on shutdown: cancels the runs still going and forgets them all
 * ```
 */
export function createRunRegistry(options: RunRegistryOptions = {}): RunRegistry {
  const { replayLimit, ttlMs, maxRuns, heartbeatMs, stallTimeoutMs, scheduler, exposeError } = parseConfig(RunRegistryOptionsSchema, options, 'createRunRegistry options');
  const runs = new Map<string, RunLog>();
  const frame = frameMaker<unknown>(undefined, exposeError);
  /** Per run still going, what cancels it (ending its open nodes in its events). */
  const cancels = new WeakMap<RunLog, Subject<void>>();

  const makeRoom = (): void => {
    if (runs.size < maxRuns) return;
    for (const [runId, log] of runs) {
      if (log.ending !== undefined) {
        forget(runId, log, 'evicted');
        return;
      }
    }
    throw new RunRegistryFullError(maxRuns);
  };

  const forget = (runId: string, log: RunLog, reason: RunForgottenReason): void => {
    log.expiry?.unsubscribe();
    if (runs.get(runId) === log) runs.delete(runId);
    // Its viewers still reading end now, so that nothing holds the run's events any more.
    log.forget(new RunForgottenError(reason));
  };

  const finish = (runId: string, log: RunLog, ending: Parameters<RunLog['end']>[0]): void => {
    if (log.ending !== undefined) return;
    log.end(ending);
    log.expiry = scheduleDelay(scheduler, ttlMs, () => forget(runId, log, 'expired'));
  };

  function start(...args: [Observable<RunEvent>] | [string, string, (run: RunContext) => Observable<unknown>]): { readonly runId: string } {
    const runId = newRunId();
    const events$ = args.length === 1 ? args[0] : observeRun(args[0], args[1], args[2], { runId, scheduler });
    if (!isObservable(events$)) throw new ConfigError('RunRegistry.start', [{ path: 'events$', rule: 'must be an Observable of run events', received: events$ }]);
    makeRoom();
    const log = new RunLog(replayLimit);
    runs.set(runId, log);
    const cancelled = new Subject<void>();
    cancels.set(log, cancelled);
    log.subscription = events$.pipe(takeRunUntil(cancelled, args.length === 1 ? {} : { scheduler })).subscribe({
      next: (event) => {
        // After a value that could not be written, nothing more is kept (a run given synchronously is still being subscribed).
        if (log.ending !== undefined) return;
        try {
          log.append(encodeFrame(frame(event, log.next)));
        } catch (error) {
          log.subscription?.unsubscribe();
          finish(runId, log, { kind: 'error', error });
        }
      },
      error: (error: unknown) => finish(runId, log, { kind: 'error', error }),
      complete: () => finish(runId, log, { kind: 'complete' }),
    });
    // It ended while being subscribed, before its subscription could be unsubscribed: stop it now.
    if (log.ending !== undefined) log.subscription.unsubscribe();
    return { runId };
  }

  const cancel = (runId: string): boolean => {
    const log = runs.get(runId);
    if (log === undefined || log.ending !== undefined) return false;
    // The run is unsubscribed and its open nodes end in its events: viewers see it end as cancelled.
    cancels.get(log)?.next();
    if (log.ending !== undefined) return true;
    log.subscription?.unsubscribe();
    const error = new Error('The run was cancelled');
    error.name = 'AbortError';
    finish(runId, log, { kind: 'error', error });
    return true;
  };

  return {
    start: start as RunRegistry['start'],
    has: (runId) => runs.has(runId),
    cancel,
    close: () => {
      for (const [runId, log] of [...runs]) {
        cancel(runId);
        forget(runId, log, 'closed');
      }
    },
    response: (runId, request) => {
      const log = typeof runId === 'string' ? runs.get(runId) : undefined;
      if (log === undefined) return new Response('Unknown run', { status: 404, headers: { 'content-type': 'text/plain; charset=utf-8' } });
      const lastEventId = request.headers.get('last-event-id') ?? new URL(request.url).searchParams.get('lastEventId');
      let cursor = 0;
      if (lastEventId !== null && lastEventId !== '') {
        if (!/^\d{1,15}$/.test(lastEventId) || Number(lastEventId) >= log.next) {
          return new Response('Last-Event-ID is not an event of this run', { status: 400 });
        }
        cursor = Number(lastEventId) + 1;
      }
      const body = eventStreamBody({ ...log.open(cursor), exposeError }, { heartbeatMs, stallTimeoutMs, scheduler }, request.signal);
      return new Response(body, { status: 200, headers: eventStreamHeaders });
    },
  };
}
