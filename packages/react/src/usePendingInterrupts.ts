import { useMemo, useSyncExternalStore } from 'react';
import type { RunEventOf } from '@rxagents/core';
import type { RunViewStore } from './createRunViewStore';
import { openInterrupts } from './openInterrupts';
import type { RunSource } from './RunSource';
import type { RunViewOptions } from './RunViewOptions';
import type { RunViewState, RunViewStatus } from './RunViewState';
import { useStore } from './internal/useStore';

/**
 * What {@link usePendingInterrupts} gives a component: the run's questions still waiting for a person,
 * and how reading the run stands.
 *
 * @example
 * ```ts
 * import type { PendingInterruptsState } from '@rxagents/react';
 *
 * const count = ({ interrupts }: PendingInterruptsState): number => interrupts.length;
 * console.log(typeof count); // function
 * ```
 */
export interface PendingInterruptsState {
  /** The open interrupts, oldest first ({@link openInterrupts}): the same array until one opens or closes. */
  readonly interrupts: readonly RunEventOf<'interrupt'>[];
  /** Why reading failed, when `status` is `failed`. */
  readonly error: Error | undefined;
  readonly status: RunViewStatus;
}

/**
 * Gives a component the questions a run is waiting for a person to answer, live: each as its
 * `interrupt` event (`interruptId`, `kind`, `question`, the answer's JSON `schema`, `action`, `args`).
 *
 * @remarks
 * The same sources, options and rules as {@link useRunView} (reading stops on unmount or when the source
 * changes); the component renders again only when a question opens or closes, or reading's `status`
 * changes, not at every token. Answer one with {@link postAnswer}: once the run takes the answer, its
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

const NONE: readonly RunEventOf<'interrupt'>[] = Object.freeze([]);

/** The open interrupts of a store's snapshots, the same object while they and the status stay the same. */
function pendingOf(store: RunViewStore): { getSnapshot(): PendingInterruptsState; getServerSnapshot(): PendingInterruptsState } {
  const server: PendingInterruptsState = Object.freeze({ interrupts: NONE, error: undefined, status: store.getServerSnapshot().status });
  let read: RunViewState | undefined;
  let last = server;
  return {
    getSnapshot() {
      const state = store.getSnapshot();
      if (state === read) return last;
      read = state;
      const open = openInterrupts(state.view);
      const interrupts = sameInterrupts(last.interrupts, open) ? last.interrupts : Object.freeze(open);
      if (interrupts !== last.interrupts || state.error !== last.error || state.status !== last.status) last = Object.freeze({ interrupts, error: state.error, status: state.status });
      return last;
    },
    getServerSnapshot: () => server,
  };
}

function sameInterrupts(before: readonly RunEventOf<'interrupt'>[], after: readonly RunEventOf<'interrupt'>[]): boolean {
  return before.length === after.length && before.every((asked, index) => asked === after[index]);
}
