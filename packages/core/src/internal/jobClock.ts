import type { SchedulerLike } from 'rxjs';

/** 1e11 ms after 1970 is March 1973: a clock reading less than this counts virtual time, not the date. */
const WALL_CLOCK_FLOOR = 1e11;

/** Consecutive jobs that read the clock only once each, after which it stops keeping readings. */
const LONE_READS_TO_STOP = 4;

/** While not keeping readings, one reading in this many is kept, to find out whether its job reads again. */
const KEEP_ONE_IN = 64;

/**
 * `scheduler`, with `now()` read once per job of the event loop when it is the wall clock and a job
 * reads it often.
 *
 * @remarks
 * Every run event carries a time, and a model can stream a million deltas in one synchronous stretch;
 * reading the system clock for each costs more than delivering the event. So the first `now()` of a job
 * is kept until the job's microtasks run, and the events of one synchronous stretch share its time.
 *
 * Keeping a reading costs a microtask, which only pays when other reads of the same job share it. A
 * stream whose every delta arrives in a job of its own (an async iterator, a network stream) would pay
 * the microtask for nothing, so after {@link LONE_READS_TO_STOP} jobs in a row that read the clock once
 * each, `now()` reads the scheduler every time and keeps only one reading in {@link KEEP_ONE_IN}; as
 * soon as a kept reading is read again in its job (a synchronous stretch again), readings are kept
 * again. Either way a reading is the scheduler's time within the job it is taken in.
 *
 * Only a clock that reads like milliseconds since 1970 is treated so; a virtual clock (`TestScheduler`
 * counts frames from 0) is read every time, so marble tests see each frame's time exactly.
 */
export function jobClock(scheduler: SchedulerLike): SchedulerLike {
  let cached = 0;
  let valid = false;
  let keeping = true;
  let sharedReads = 0;
  let loneJobs = 0;
  let unkeptReads = 0;
  const invalidate = (): void => {
    valid = false;
    if (sharedReads > 0) {
      loneJobs = 0;
      keeping = true;
    } else if (++loneJobs >= LONE_READS_TO_STOP) keeping = false;
  };
  return {
    now: () => {
      if (valid) {
        sharedReads++;
        return cached;
      }
      const time = scheduler.now();
      // Not the wall clock (a virtual scheduler): exact every time.
      if (time < WALL_CLOCK_FLOOR) return time;
      if (!keeping && ++unkeptReads < KEEP_ONE_IN) return time;
      unkeptReads = 0;
      cached = time;
      valid = true;
      sharedReads = 0;
      queueMicrotask(invalidate);
      return time;
    },
    schedule: scheduler.schedule.bind(scheduler) as SchedulerLike['schedule'],
  };
}
