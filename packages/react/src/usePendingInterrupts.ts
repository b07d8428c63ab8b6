import { useMemo, useSyncExternalStore } from 'react';
import type { RunViewStore } from './createRunViewStore';
import type { RunSource } from './RunSource';
import type { RunViewOptions } from './RunViewOptions';
import type { PendingInterruptsState } from './PendingInterruptsState';
import { pendingOf } from './internal/pendingOf';
import { useStore } from './internal/useStore';

/**
 * Gives a component the questions a run is waiting for a person to answer, live: each as its
 * `interrupt` event (`interruptId`, `kind`, `question`, the answer's JSON `schema`, `action`, `args`).
 *
 * @remarks
 * The same sources, options and rules as {@link useRunView} (reading stops on unmount or when the source
 * changes); the component renders again only when a question opens or closes, or reading's `status`
 * or `connection` changes, not at every token. Answer one with {@link postAnswer}: once the run takes the answer, its
 * `interrupt-end` event arrives and the question leaves the list. A component that also shows the run
 * can share one connection: give both hooks one store from {@link createRunViewStore}, or derive the
 * list with `useMemo(() => openInterrupts(view), [view])`.
 *
 * @param source - The run's events, or a store of them.
 * @param options - As for {@link useRunView}.
 * @returns The open questions, with the reading's `error` and `status`.
 * @throws `ConfigError` for a bad source or option.
 *
 * @example
 * ```ts
 * // no-run: a component needs React to render it in a page
 * import { createElement } from 'react';
 * import { postAnswer, usePendingInterrupts } from '@rxagents/react';
 *
 * function Approvals({ runId }: { runId: string }) {
 *   const { interrupts } = usePendingInterrupts(`/runs/${runId}/events`);
 *   const answer = (interruptId: string, approved: boolean) => postAnswer({ url: `/runs/${runId}/answers`, interruptId, answer: { approved } });
 *   return createElement(
 *     'ul',
 *     null,
 *     ...interrupts.map((asked) =>
 *       createElement('li', { key: asked.interruptId }, asked.question, createElement('button', { onClick: () => void answer(asked.interruptId, true) }, 'Approve')),
 *     ),
 *   );
 * }
 * console.log(typeof Approvals); // function
 * ```
 */
export function usePendingInterrupts(source: RunSource | RunViewStore, options?: RunViewOptions): PendingInterruptsState {
  const store = useStore(source, options);
  const select = useMemo(() => pendingOf(store), [store]);
  return useSyncExternalStore(store.subscribe, select.getSnapshot, select.getServerSnapshot);
}
