import { delayTimer } from '@rxagents/core';
import { type Observable, of, type SchedulerLike } from 'rxjs';

/**
 * @internal Emits `0` after `ms` on `scheduler`: at once and synchronously for 0 (an answer without delay
 * is synchronous, as a model's chunks read in one job are), never for `Infinity` (nothing is scheduled).
 */
export function after(ms: number, scheduler: SchedulerLike): Observable<0> {
  return ms > 0 ? delayTimer(ms, scheduler) : of(0 as const);
}
