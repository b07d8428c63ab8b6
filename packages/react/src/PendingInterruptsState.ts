import type { RunEventOf } from '@rxagents/core';
import type { EventStreamStatus } from '@rxagents/web/client';
import type { RunViewStatus } from './RunViewState';

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
  /** The open interrupts, oldest first (`openInterrupts`): the same array until one opens or closes. */
  readonly interrupts: readonly RunEventOf<'interrupt'>[];
  /** Why reading failed, when `status` is `failed`. */
  readonly error: Error | undefined;
  readonly status: RunViewStatus;
  /** The stream's latest connection status, as in `RunViewState.connection`. */
  readonly connection: EventStreamStatus | undefined;
}
