import { animationFrameScheduler, asapScheduler, isObservable, type Observable, type SchedulerLike, type Subscription } from 'rxjs';
import { ConfigError, emptyRunView, parseConfig, reduceRunView, type RunEvent, type RunView } from '@rxagents/core';
import { fromEventStream, type EventStreamStatus } from '@rxagents/web/client';
import type { RunSource } from './RunSource';
import { RunViewOptionsSchema, type RunViewOptions } from './RunViewOptions';
import type { RunViewState, RunViewStatus } from './RunViewState';

/**
 * A run's live {@link RunViewState} as an external store: what React's `useSyncExternalStore` reads,
 * and what any other UI can subscribe to. Made by {@link createRunViewStore}.
 *
 * @example
 * ```ts
 * import type { RunViewStore } from '@rxagents/react';
 *
 * const watch = (store: RunViewStore): (() => void) => store.subscribe(() => console.log(store.getSnapshot().view.status));
 * console.log(typeof watch); // function
 * ```
 */
export interface RunViewStore {
  /**
   * Calls `listener` (with no argument) each time the snapshot changes, until the returned function is
   * called. The first listener starts reading the source; once the last one has left, and none came
   * back within the same task, reading stops (the fetch is aborted, the Observable unsubscribed).
   */
  subscribe(listener: () => void): () => void;
  /** The latest state: the same object until something changed. */
  getSnapshot(): RunViewState;
  /** The state before any event (`connecting`, `emptyRunView`): what a server renders. */
  getServerSnapshot(): RunViewState;
}

/** The state before any event, shared by every store (a server render and the first client render agree). */
const CONNECTING: RunViewState = Object.freeze({ view: emptyRunView, error: undefined, status: 'connecting', connection: undefined });

const hasAnimationFrames = (): boolean => typeof (globalThis as { requestAnimationFrame?: unknown }).requestAnimationFrame === 'function';

/**
 * Makes a store of a run's live {@link RunViewState}, read from a URL, a `Request`, a `Response` or an
 * Observable of run events: what {@link useRunView} subscribes to, for sharing one connection between
 * components, or for a UI that is not React.
 *
 * @remarks
 * Nothing is read until the first `subscribe`. Each event is folded into the view with `reduceRunView`
 * (each costs the same however large the run), and listeners are told at most once per task of
 * `frameScheduler` (by default once per animation frame in a page), with the latest view: every view
 * contains all the events before it, so nothing is lost by skipping the ones in between. The store ends
 * `ended` when the source completes and `failed` (with the error) when it errors. While a stream's
 * connection is lost and `fromEventStream` reconnects (by default for 5 minutes, backing off up to 5 s
 * between tries), the status is `reconnecting` and `connection` says which try and when; the view stays
 * as far as it was read, and goes on with no gap once the server answers again.
 *
 * Reading stops when the last listener leaves and none comes back within the same task (on
 * `asapScheduler`): React's StrictMode, which unmounts and mounts a component again at once in
 * development, does not read a run twice. Stopping unsubscribes from the source: for a URL or a
 * `Request`, the fetch is aborted and the server sees the request close. What that does to the run is
 * the server's affair: a run registry's run goes on (cancel it with `registry.cancel`), a run made per
 * request with the request's signal (`toEventStreamResponse(..., { signal })`) is cancelled, and a cold
 * Observable (an `observeRun` in the page) is cancelled. A listener that subscribes after reading
 * stopped starts reading again, from an empty view (a `Response` cannot be read twice: that fails).
 *
 * @param source - The run's events: a URL, a `Request`, a `Response` or an Observable of run events.
 * @param options - The stream's `fetch`, reconnection, frame limit and clock, and the render pacing.
 * @returns The store.
 * @throws `ConfigError` for a bad source or option.
 *
 * @example
 * ```ts
 * import { from, queueScheduler } from 'rxjs';
 * import { defineAgent, invoke$, observeRun } from '@rxagents/core';
 * import { createRunViewStore } from '@rxagents/react';
 *
 * const writer = defineAgent('writer', () => from(['Once ', 'upon ', 'a time']));
 * const events$ = observeRun('story', 'go', (run) => invoke$(writer, 'go', { run }));
 * const store = createRunViewStore(events$, { frameScheduler: queueScheduler });
 * const stop = store.subscribe(() => {
 *   const { status, view } = store.getSnapshot();
 *   if (status === 'ended') console.log(view.nodes[1]?.text); // Once upon a time
 * });
 * stop();
 * ```
 */
export function createRunViewStore(source: RunSource, options: RunViewOptions = {}): RunViewStore {
  const { frameScheduler, ...streamOptions } = parseConfig(RunViewOptionsSchema, options, 'createRunViewStore options');
  checkSource(source);
  const pace: SchedulerLike = frameScheduler ?? (hasAnimationFrames() ? animationFrameScheduler : asapScheduler);
  const listeners = new Set<() => void>();
  let snapshot = CONNECTING;
  // What was read, told to listeners at the next `pace` task.
  let view: RunView = emptyRunView;
  let status: RunViewStatus = 'connecting';
  let error: Error | undefined;
  let connection: EventStreamStatus | undefined;
  let sawEvent = false;
  let reading: Subscription | undefined;
  let told: Subscription | undefined;
  let leaving: Subscription | undefined;
  let telling = false;

  const tell = (): void => {
    telling = false;
    if (snapshot.view === view && snapshot.status === status && snapshot.error === error && snapshot.connection === connection) return;
    snapshot = Object.freeze({ view, error, status, connection });
    for (const listener of [...listeners]) listener();
  };
  const changed = (): void => {
    if (telling) return;
    telling = true;
    told = pace.schedule(tell);
  };
  const fail = (cause: unknown): void => {
    error = cause instanceof Error ? cause : new Error(String(cause), { cause });
    status = 'failed';
    changed();
  };

  const start = (): void => {
    view = emptyRunView;
    status = 'connecting';
    error = undefined;
    connection = undefined;
    sawEvent = false;
    snapshot = CONNECTING;
    const onStatus = (next: EventStreamStatus): void => {
      connection = next;
      // A give-up is followed by the stream's error, which sets `failed`.
      if (next.state === 'reconnecting') status = 'reconnecting';
      else if (next.state === 'connected') status = sawEvent ? 'live' : 'connecting';
      changed();
    };
    let events$: Observable<RunEvent>;
    try {
      events$ = isObservable(source) ? source : fromEventStream(source, { ...streamOptions, onStatus });
    } catch (thrown) {
      fail(thrown);
      return;
    }
    reading = events$.subscribe({
      next: (event) => {
        try {
          view = reduceRunView(view, event);
        } catch (thrown) {
          reading?.unsubscribe();
          fail(thrown);
          return;
        }
        sawEvent = true;
        status = 'live';
        changed();
      },
      error: fail,
      complete: () => {
        status = 'ended';
        changed();
      },
    });
    // A source that failed while subscribing is done: nothing left to read.
    if ((status as RunViewStatus) === 'failed') reading.unsubscribe();
  };
  const stop = (): void => {
    leaving = undefined;
    reading?.unsubscribe();
    reading = undefined;
    told?.unsubscribe();
    telling = false;
  };

  return {
    subscribe(listener) {
      if (typeof listener !== 'function') throw new ConfigError('RunViewStore.subscribe', [{ path: 'listener', rule: 'must be a function', received: listener }]);
      listeners.add(listener);
      if (leaving !== undefined) {
        // Back within the same task (StrictMode's second mount): go on reading what was being read.
        leaving.unsubscribe();
        leaving = undefined;
      } else if (reading === undefined && listeners.size === 1) start();
      return () => {
        if (!listeners.delete(listener) || listeners.size > 0 || reading === undefined) return;
        leaving = asapScheduler.schedule(stop);
      };
    },
    getSnapshot: () => snapshot,
    getServerSnapshot: () => CONNECTING,
  };
}

function checkSource(source: unknown): asserts source is RunSource {
  if (typeof source === 'string' || source instanceof URL || isObservable(source)) return;
  if (typeof Request !== 'undefined' && source instanceof Request) return;
  if (typeof Response !== 'undefined' && source instanceof Response) return;
  throw new ConfigError('createRunViewStore', [{ path: 'source', rule: 'must be a URL, a Request, a Response or an Observable of run events', received: source }]);
}
