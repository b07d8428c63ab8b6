import type { RunEventOf } from '@rxagents/core';
import type { RunViewStore } from '../createRunViewStore';
import { openInterrupts } from '../openInterrupts';
import type { RunViewState } from '../RunViewState';
import type { PendingInterruptsState } from '../PendingInterruptsState';

const NONE: readonly RunEventOf<'interrupt'>[] = Object.freeze([]);

/** The open interrupts of a store's snapshots, the same object while they and the status stay the same. */
export function pendingOf(store: RunViewStore): { getSnapshot(): PendingInterruptsState; getServerSnapshot(): PendingInterruptsState } {
  const server: PendingInterruptsState = Object.freeze({ interrupts: NONE, error: undefined, status: store.getServerSnapshot().status, connection: undefined });
  let read: RunViewState | undefined;
  let last = server;
  return {
    getSnapshot() {
      const state = store.getSnapshot();
      if (state === read) return last;
      read = state;
      const open = openInterrupts(state.view);
      const interrupts = sameInterrupts(last.interrupts, open) ? last.interrupts : Object.freeze(open);
      if (interrupts !== last.interrupts || state.error !== last.error || state.status !== last.status || state.connection !== last.connection) {
        last = Object.freeze({ interrupts, error: state.error, status: state.status, connection: state.connection });
      }
      return last;
    },
    getServerSnapshot: () => server,
  };
}

function sameInterrupts(before: readonly RunEventOf<'interrupt'>[], after: readonly RunEventOf<'interrupt'>[]): boolean {
  return before.length === after.length && before.every((asked, index) => asked === after[index]);
}
