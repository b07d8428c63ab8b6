import type { SchedulerLike } from 'rxjs';

/** 1e11 ms after 1970 is March 1973: a clock reading less than this counts virtual time, not the date. */
const WALL_CLOCK_FLOOR = 1e11;

/**
 * `scheduler`, with `now()` read once per job of the event loop when it is the wall clock.
 *
 * @remarks
 * Every run event carries a time, and a model can stream a million deltas in one synchronous stretch;
 * reading the system clock for each costs more than delivering the event. So the first `now()` of a job
 * is kept until the job's microtasks run, and the events of one synchronous stretch share its time.
 * Only a clock that reads like milliseconds since 1970 is treated so; a virtual clock (`TestScheduler`
 * counts frames from 0) is read every time, so marble tests see each frame's time exactly.
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
      if (time < WALL_CLOCK_FLOOR) return time;
      cached = time;
      valid = true;
      queueMicrotask(invalidate);
      return time;
    },
    schedule: scheduler.schedule.bind(scheduler) as SchedulerLike['schedule'],
  };
}
