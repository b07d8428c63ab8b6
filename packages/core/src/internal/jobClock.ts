import type { SchedulerLike } from 'rxjs';

/**
 * `scheduler`, with `now()` read once per job of the event loop when it is the wall clock.
 *
 * @remarks
 * Every run event carries a time, and a model can stream a million deltas in one synchronous stretch;
 * reading the system clock for each costs more than delivering the event. So the first `now()` of a job
 * is kept until the job's microtasks run, and the events of one synchronous stretch share its time.
 * A virtual clock (`TestScheduler`, whose time is far from `Date.now()`) is read every time, so marble
 * tests see each frame's time exactly.
 */
export function jobClock(scheduler: SchedulerLike): SchedulerLike {
  let cached = 0;
  let valid = false;
  const invalidate = (): void => {
    valid = false;
  };
  return {
    now: () => {
      if (valid) return cached;
      const time = scheduler.now();
      // Not the wall clock (a virtual scheduler): exact every time.
      if (Math.abs(time - Date.now()) > 1_000) return time;
      cached = time;
      valid = true;
      queueMicrotask(invalidate);
      return time;
    },
    schedule: scheduler.schedule.bind(scheduler) as SchedulerLike['schedule'],
  };
}
