import { NEVER, type Observable, type SchedulerLike, Subscription, timer } from 'rxjs';
import { isScheduler } from './configRules';
import { ConfigError } from './errors/ConfigError';
import { MAX_DELAY_MS } from './limits';

/**
 * Schedules `work` on `scheduler` after `ms` milliseconds; `Infinity` never runs it.
 *
 * @remarks
 * The one place where rxagents turns a timer-valued option into a scheduled action. `Infinity` returns
 * a closed subscription and schedules nothing (RxJS's `asyncScheduler` would fire it after 1 ms). A
 * value outside 0 to {@link MAX_DELAY_MS} is a {@link ConfigError}: option schemas refuse it with
 * `configRules.timeoutMs`/`configRules.delayMs` before it can reach a timer.
 *
 * @param scheduler - The clock (`asyncScheduler`, or a `TestScheduler` in marble tests).
 * @param ms - The delay in milliseconds, or `Infinity`.
 * @param work - What to run when the delay has passed.
 * @returns The subscription that cancels the scheduled work.
 *
 * @example
 * ```ts
 * import { scheduleDelay } from '@rxagents/core';
 * import { asyncScheduler } from 'rxjs';
 *
 * const never = scheduleDelay(asyncScheduler, Infinity, () => console.log('not printed'));
 * const soon = scheduleDelay(asyncScheduler, 10, () => console.log('after 10 ms'));
 * never.unsubscribe();
 * ```
 */
export function scheduleDelay(scheduler: SchedulerLike, ms: number, work: () => void): Subscription {
  if (!isScheduler(scheduler)) throw new ConfigError('scheduleDelay', [{ path: 'scheduler', rule: 'must be an RxJS scheduler (with now() and schedule())', received: scheduler }]);
  if (typeof work !== 'function') throw new ConfigError('scheduleDelay', [{ path: 'work', rule: 'must be a function', received: work }]);
  if (ms === Infinity) return Subscription.EMPTY;
  checkDelay(ms);
  return scheduler.schedule(work, ms);
}

/**
 * Emits `0` after `ms` milliseconds on `scheduler` and completes; with `Infinity` it never emits.
 *
 * @remarks
 * `timer()` for timer-valued options: the same rules as {@link scheduleDelay}.
 *
 * @example
 * ```ts
 * import { delayTimer } from '@rxagents/core';
 * import { interval, takeUntil } from 'rxjs';
 *
 * interval(100).pipe(takeUntil(delayTimer(1_000))).subscribe(console.log); // 0 .. 8, then completes
 * ```
 */
export function delayTimer(ms: number, scheduler?: SchedulerLike): Observable<0> {
  if (scheduler !== undefined && !isScheduler(scheduler)) throw new ConfigError('delayTimer', [{ path: 'scheduler', rule: 'must be an RxJS scheduler (with now() and schedule())', received: scheduler }]);
  if (ms === Infinity) return NEVER;
  checkDelay(ms);
  return scheduler === undefined ? timer(ms) : timer(ms, scheduler);
}

function checkDelay(ms: number): void {
  if (!(typeof ms === 'number' && ms >= 0 && ms <= MAX_DELAY_MS)) {
    throw new ConfigError('delay', [{ path: '', rule: `must be from 0 to ${MAX_DELAY_MS} ms, or Infinity`, received: ms }]);
  }
}
