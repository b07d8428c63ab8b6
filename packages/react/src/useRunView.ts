import { useSyncExternalStore } from 'react';
import type { RunViewStore } from './createRunViewStore';
import type { RunSource } from './RunSource';
import type { RunViewOptions } from './RunViewOptions';
import type { RunViewState } from './RunViewState';
import { useStore } from './internal/useStore';

/**
 * Gives a component the live {@link RunViewState} of a run: `{ view, error, status }`, re-rendered as
 * its events arrive, at most once per animation frame.
 *
 * @remarks
 * `source` is a URL of the run's Server-Sent Events (a run registry's route, read with
 * `fromEventStream`: checked events, reconnection with `Last-Event-ID`), a `Request`, a `Response`, an
 * Observable of run events, or a store from {@link createRunViewStore} (to share one connection
 * between components). Built on `useSyncExternalStore`: every component of a render sees the same view,
 * and a server render shows the `connecting` state with an empty view.
 *
 * Reading starts when the component mounts and stops when it unmounts or when `source` changes (a URL
 * by its text, anything else by identity: keep an Observable, a `Request` or a `Response` in
 * `useMemo` or state, or every render starts over). Stopping aborts the fetch; whether the run stops
 * too is the server's decision (see {@link createRunViewStore}). `options` are read when the source
 * changes, not at every render. A stream that fails leaves `status: 'failed'` and the `error`, with
 * the view as far as it was read.
 *
 * @param source - The run's events, or a store of them.
 * @param options - The stream's `fetch`, reconnection, frame limit and clock, and the render pacing.
 * @returns The latest state: the same object until something changed.
 * @throws `ConfigError` for a bad source or option (during render, so an error boundary shows it).
 *
 * @example
 * ```ts
 * // no-run: a component needs React to render it in a page
 * import { createElement } from 'react';
 * import { useRunView } from '@rxagents/react';
 *
 * function Story({ runId }: { runId: string }) {
 *   const { view, error, status } = useRunView(`/runs/${runId}/events`);
 *   if (status === 'failed') return createElement('p', { role: 'alert' }, error?.message);
 *   const calls = view.nodes.filter((node) => node.kind === 'call');
 *   return createElement('article', { 'data-status': view.status }, ...calls.map((call) => createElement('p', { key: call.callId }, call.text)));
 * }
 * console.log(typeof Story); // function
 * ```
 */
export function useRunView(source: RunSource | RunViewStore, options?: RunViewOptions): RunViewState {
  const store = useStore(source, options);
  return useSyncExternalStore(store.subscribe, store.getSnapshot, store.getServerSnapshot);
}
