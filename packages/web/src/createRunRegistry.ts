import { isObservable, type Observable } from 'rxjs';
import { ConfigError, newRunId, observeRun, parseConfig, type RunContext, type RunEvent, type RunEventOf, type RunListOptions, type RunStore, type RunSummary } from '@rxagents/core';
import { answerRoute } from './internal/answerRoute';
import { eventStreamBody } from './internal/eventStreamBody';
import { HeldRuns } from './internal/HeldRuns';
import type { RunLog } from './internal/RunLog';
import { StoredRuns } from './internal/StoredRuns';
import { badLastEventId, lastEventIdOf, unknownRun } from './internal/lastEventIdOf';
import { RunAnswers } from './internal/RunAnswers';
import { RunRegistryOptionsSchema, type RunRegistryOptions } from './RunRegistryOptions';
import { frameMaker } from './toEventStream';
import { eventStreamHeaders } from './toEventStreamResponse';

export type { RunRegistryOptions } from './RunRegistryOptions';

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
  /** Starts a run of the code the `runs` option holds under `name` (a `ConfigError` when it holds none). */
  start(name: string, input: string): { readonly runId: string };
  /**
   * Starts watching `events$` now (any run's events, for example a pattern's `events$(input)`) under a
   * new run id. Such a run is kept in memory only, even by a registry with a store.
   */
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
  /**
   * The runs the registry holds (running, and finished ones until they expire), in the order they
   * started, each as a run store summarizes a run: its id, its name (its root `run-start`'s, `''` before
   * that), `running` until its root `run-end` says `succeeded` or `failed` (a run cancelled or whose
   * events errored is `failed`), how many events it gave, and when it started and last changed
   * (`scheduler.now()`). `status` keeps the runs in that state only. For a run inspector, and the
   * server's own pages; the run ids it gives are the runs' capabilities, so never show it to a viewer.
   */
  list(options?: RunListOptions): readonly RunSummary[];
  /**
   * Answers an interrupt of one of this registry's runs (as its `interrupt` event names it), for the
   * server's own code; a page answers through {@link RunRegistry.handleAnswer}. The run goes on with the
   * answer. Resolves once the answer is taken.
   *
   * @remarks
   * Only an interrupt that the run's events show open is found, so a run's id answers that run's
   * questions and no other's: an unknown run, another registry's run, an interrupt of another run, one
   * already answered or ended all reject with `InterruptNotFoundError`. An answer that does not fit the
   * interrupt's schema rejects with `InterruptAnswerError` (its `issues`) and the interrupt keeps waiting.
   * A durable registry also answers a run this process does not run, when its journal shows the
   * interrupt waiting and its name is in `runs`: it resumes the run, then answers once the run asks the
   * same question again (within `reopenTimeoutMs`, else `InterruptNotFoundError`); while another process
   * runs it, the answer rejects with {@link RunHeldElsewhereError}; when the store cannot be read, with
   * the store's error. So does an answer to a run of this registry that stopped short of its end (its
   * lease lost in a stall) while the registry resumes it. One answer per question waits so: another one
   * meanwhile rejects at once with `InterruptNotFoundError`.
   */
  answer(runId: string, interruptId: string, answer: unknown): Promise<void>;
  /**
   * The HTTP route of a page's answer to an interrupt of the run `runId` (take it from the route's URL,
   * the one the page watches): a `POST` with the JSON body `{ "interruptId": string, "answer": <JSON> }`,
   * given to {@link RunRegistry.answer}. Resolves to `204` when taken; `400` for a body that is not that
   * (naming the field and the rule, never the value sent); `404` when the run has no such open interrupt
   * (the same response for an unknown run, an unknown or ended interrupt and another run's interrupt);
   * `405` for another method; `409` when another process runs the run ({@link RunHeldElsewhereError});
   * `413` for a body over `maxAnswerBytes` (reading stops there); `422` when the answer does not fit the
   * question's schema (`issues`: each `{ path, rule }`), the question still waiting. Rejects with a
   * `ConfigError` naming `request` when it is not a `Request`, and with the store's error when a durable
   * registry cannot read its store.
   */
  handleAnswer(runId: string, request: Request): Promise<Response>;
  /**
   * The run's open interrupts, oldest first: the `interrupt` events its events show without their
   * `interrupt-end` (none for an unknown or finished run). For a page that joins late and for the
   * server's own code; a viewer also sees them in the run's replayed events, as long as the registry
   * still keeps them (`replayLimit`).
   */
  pending(runId: string): readonly RunEventOf<'interrupt'>[];
  /**
   * Cancels every run and forgets them all, with their expiry timers (for a server shutting down, and
   * tests). A durable run is not cancelled: it stops here as in a crash, unfinished in its store, so that
   * another registry resumes it.
   */
  close(): void;
}

/**
 * A run registry with a store ({@link createRunRegistry} with `store`): its runs are durable, its viewers
 * are served from the journal, and it resumes the store's unfinished runs.
 *
 * @remarks
 * `response` answers once it has asked the store about a run this process does not hold. For a run the
 * store holds, it streams the journal from the request's `Last-Event-ID` on (each event's id is its
 * record's `seq`, the same position the registry gives it in memory), then the live events while the run
 * runs here. A run that another process runs is served from its journal, read again every `pollMs`.
 *
 * A run that stops here short of its end because it lost its lease (its event loop was blocked longer
 * than `leaseTtlMs`) or an append failed is resumed by the registry at once, with the code it was
 * started with, unless another process holds its lease now (then answers to it get `409`). Its viewers
 * read on from the resumed run; its question is asked again under the same `interruptId`; an answer the
 * stopped run took but did not journal is applied again, and one sent in between waits for the question
 * (within `reopenTimeoutMs`) instead of getting `404`.
 *
 * @example
 * ```ts
 * import type { DurableRunRegistry } from '@rxagents/web';
 *
 * async function onStartup(registry: DurableRunRegistry): Promise<void> {
 *   const resumed = await registry.resumeAll();
 *   console.log(`resumed ${resumed.length} runs`);
 * }
 * console.log(typeof onStartup); // function
 * ```
 */
export interface DurableRunRegistry extends Omit<RunRegistry, 'response' | 'pending' | 'list'> {
  /**
   * The store's runs (`store.list(options)`, running and finished, whichever process runs them), then
   * the runs this registry holds in memory only (started with `start(events$)`), as
   * {@link RunRegistry.list} says them. Rejects when the store cannot list.
   */
  list(options?: RunListOptions): Promise<readonly RunSummary[]>;
  /**
   * A Server-Sent Events response with the run's events after the request's `Last-Event-ID` (or
   * `?lastEventId=`), read from the registry's memory or from the store's journal; `404` when neither
   * holds the run, `400` for an id that is not one of the run's, `503` when the store cannot be asked.
   * An unfinished run that no process runs (its lease is free) and whose name is in `runs` is resumed
   * here first.
   */
  response(runId: string, request: Request): Promise<Response>;
  /**
   * Resumes every unfinished (`running`) run of the store that this registry does not hold, whose name
   * is in `runs` and whose lease is free, one after another: what each had journaled is kept, its
   * finished agent calls are answered from the journal, the others run again. Resolves with the ids of
   * the runs it resumed. Call it when the server starts.
   */
  resumeAll(): Promise<readonly string[]>;
  /**
   * The run's open interrupts, oldest first: for a run held here, the questions it asked and that wait
   * for an answer (also while the registry resumes it after a stop short of its end); for another
   * unfinished run of the store, from its journal (each `interrupt` without a later `interrupt-end`, or
   * closed only because its call was interrupted): what a restarted server can still take an answer to.
   */
  pending(runId: string): Promise<readonly RunEventOf<'interrupt'>[]>;
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
 * viewer keeps a forgotten run's events in memory. A run's questions to a person (its `interrupt`
 * events) are answered through `handleAnswer(runId, request)`, the route a page posts to, or `answer`:
 * only under the run's own id, the body read up to `maxAnswerBytes` and checked.
 *
 * With a `store`, the registry is a {@link DurableRunRegistry}: every run it starts by name is durable
 * (`observeRun` with the store, under the run's id), a viewer is shown an event once the store holds it,
 * and an event older than `replayLimit`, or of a run this process does not hold, is read from the
 * journal, at most 256 records (about 64 KiB) per read. An unfinished run is resumed by
 * `resumeAll()` and by a viewer's request when its name is in `runs` and its lease is free; while another
 * process holds its lease, its viewers read its journal every `pollMs`, and the registry takes it over at
 * the first read after that lease lapsed. `cancel` journals the cancellation (the run is not resumed);
 * `close` stops durable runs as a crash would, unfinished, for the next registry to resume.
 *
 * @param options - Replay size, expiry, capacity, heartbeat, stall timeout, clock, what an error shows, and the store.
 * @returns An empty registry (a {@link DurableRunRegistry} with a `store`).
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
 *
 * @example
 * ```ts
 * import { from } from 'rxjs';
 * import { defineAgent, invoke$, MemoryRunStore, type RunContext } from '@rxagents/core';
 * import { createRunRegistry } from '@rxagents/web';
 *
 * const writer = defineAgent('writer', () => from(['Once ', 'upon ', 'a time']));
 * const runs = new Map([['story', (input: string) => (run: RunContext) => invoke$(writer, input, { run })]]);
 * const store = new MemoryRunStore(); // a FileRunStore or RedisRunStore survives the process
 * const registry = createRunRegistry({ store, runs });
 * await registry.resumeAll(); // on startup: continue what the last process left unfinished
 *
 * const { runId } = registry.start('story', 'go');
 * const response = await registry.response(runId, new Request(`http://localhost/runs/${runId}`));
 * console.log((await response.text()).split('\n\n')[0]?.split('\n')[0]); // id: 0
 * registry.close();
 * ```
 */
export function createRunRegistry(options: RunRegistryOptions & { readonly store: RunStore }): DurableRunRegistry;
export function createRunRegistry(options?: RunRegistryOptions): RunRegistry;
export function createRunRegistry(options: RunRegistryOptions = {}): RunRegistry | DurableRunRegistry {
  const settings = parseConfig(RunRegistryOptionsSchema, options, 'createRunRegistry options');
  const { heartbeatMs, stallTimeoutMs, scheduler, exposeError, store, runs: bodies } = settings;
  const frame = frameMaker<unknown>(undefined, exposeError);
  const held = new HeldRuns({ ...settings, frame });
  const stored = store === undefined ? undefined : new StoredRuns(held, { ...settings, store, runs: bodies, frame });
  const answers = new RunAnswers({ held, stored, reopenTimeoutMs: settings.reopenTimeoutMs, scheduler });
  const answer = (runId: string, interruptId: string, value: unknown): Promise<void> => answers.answer(runId, interruptId, value);

  function start(...args: [Observable<RunEvent>] | [string, string, RunBody?]): { readonly runId: string } {
    const runId = newRunId();
    if (args.length === 1) {
      const [events$] = args;
      if (!isObservable(events$)) throw new ConfigError('RunRegistry.start', [{ path: 'events$', rule: 'must be an Observable of run events', received: events$ }]);
      held.launch({ runId, events$ });
      return { runId };
    }
    const [name, input] = args;
    const body = args[2] ?? bodyOf(bodies, name, input);
    if (stored !== undefined) stored.start(runId, name, input, body);
    else held.launch({ runId, events$: observeRun(name, input, body, { runId, scheduler }), scheduler });
    return { runId };
  }

  /** The response of a run held here in memory only (no store, or given as events). */
  const fromMemory = (log: RunLog, request: Request, lastEventId: number | undefined): Response => {
    if (lastEventId !== undefined && lastEventId >= log.next) return badLastEventId();
    const body = eventStreamBody({ ...log.open(lastEventId === undefined ? 0 : lastEventId + 1), exposeError }, { heartbeatMs, stallTimeoutMs, scheduler }, request.signal);
    return new Response(body, { status: 200, headers: eventStreamHeaders });
  };

  const registry: RunRegistry = {
    start: start as RunRegistry['start'],
    has: (runId) => held.runs.has(runId),
    list: (options = {}) => held.summaries().filter((summary) => options.status === undefined || summary.status === options.status),
    cancel: (runId) => held.cancel(runId),
    answer,
    handleAnswer: answerRoute(answer, settings.maxAnswerBytes),
    pending: (runId) => (typeof runId === 'string' ? held.openInterrupts(runId) : []),
    close: () => {
      held.close();
      stored?.close();
    },
    response: (runId, request) => {
      const log = typeof runId === 'string' ? held.runs.get(runId) : undefined;
      if (log === undefined) return unknownRun();
      const lastEventId = lastEventIdOf(request);
      return lastEventId === 'bad' ? badLastEventId() : fromMemory(log, request, lastEventId);
    },
  };
  if (stored === undefined) return registry;
  const durable: DurableRunRegistry = {
    ...registry,
    resumeAll: () => stored.resumeAll(),
    list: async (options = {}) => {
      const journaled = store === undefined ? [] : await store.list(options);
      const known = new Set(journaled.map((summary) => summary.runId));
      return [...journaled, ...registry.list(options).filter((summary) => !known.has(summary.runId))];
    },
    pending: async (runId) => {
      if (typeof runId !== 'string' || runId === '') return [];
      // A durable run held here: what it asked and was not answered, also between a stop and its question asked again.
      const questions = stored.questionsHeld(runId);
      if (questions !== undefined) return questions.waiting();
      return held.runs.has(runId) ? held.openInterrupts(runId) : stored.openInJournal(runId);
    },
    response: async (runId, request) => {
      if (typeof runId !== 'string' || runId.trim() === '') return unknownRun();
      const lastEventId = lastEventIdOf(request);
      const log = held.runs.get(runId);
      if (log !== undefined && !held.isDurable(log)) return lastEventId === 'bad' ? badLastEventId() : fromMemory(log, request, lastEventId);
      return stored.response(runId, lastEventId, request.signal);
    },
  };
  return durable;
}

/** A run's work, given its context. */
type RunBody = (run: RunContext) => Observable<unknown>;

function bodyOf(bodies: ReadonlyMap<string, (input: string) => RunBody>, name: string, input: string): RunBody {
  const make = bodies.get(name);
  if (make === undefined) throw new ConfigError('RunRegistry.start', [{ path: 'body', rule: 'must be given, or the name must be one of the `runs` option', received: name }]);
  return make(input);
}
