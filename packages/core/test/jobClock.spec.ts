import { asyncScheduler, type SchedulerLike } from 'rxjs';
import { jobClock } from '../src/internal/jobClock';

/** A wall clock (milliseconds since 1970) that counts how often it is read. */
function wallClock(): { scheduler: SchedulerLike; reads: () => number; advance: (ms: number) => void } {
  let time = Date.UTC(2026, 11, 1);
  let reads = 0;
  const scheduler: SchedulerLike = {
    now: () => {
      reads++;
      return time;
    },
    schedule: asyncScheduler.schedule.bind(asyncScheduler) as SchedulerLike['schedule'],
  };
  return { scheduler, reads: () => reads, advance: (ms) => (time += ms) };
}

const nextJob = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('jobClock', () => {
  it('reads a wall clock once for a synchronous stretch, and again in the next job', async () => {
    const wall = wallClock();
    const clock = jobClock(wall.scheduler);
    const first = clock.now();
    wall.advance(5);
    for (let i = 0; i < 1_000; i++) expect(clock.now()).toBe(first);
    expect(wall.reads()).toBe(1);
    await nextJob();
    expect(clock.now()).toBe(first + 5);
    expect(wall.reads()).toBe(2);
  });

  it('reads a virtual clock every time', () => {
    let frame = 0;
    const clock = jobClock({ now: () => frame, schedule: asyncScheduler.schedule.bind(asyncScheduler) as SchedulerLike['schedule'] });
    expect(clock.now()).toBe(0);
    frame = 30;
    expect(clock.now()).toBe(30);
  });

  it('stops queueing a microtask per reading when every job reads once, and starts again for a synchronous stretch', async () => {
    const wall = wallClock();
    const clock = jobClock(wall.scheduler);
    const queued = jest.spyOn(globalThis, 'queueMicrotask');
    try {
      // One reading per job, as when each delta of an async iterator arrives in a job of its own.
      for (let i = 0; i < 200; i++) {
        wall.advance(1);
        const before = wall.reads();
        expect(clock.now()).toBe(Date.UTC(2026, 11, 1) + i + 1);
        expect(wall.reads()).toBe(before + 1);
        await nextJob();
      }
      // The first few jobs keep their reading; then only one reading in 64 is kept.
      expect(queued.mock.calls.length).toBeLessThanOrEqual(4 + Math.ceil(196 / 64));

      // A synchronous stretch again: within one kept reading's job the clock is read no more.
      const readsBefore = wall.reads();
      for (let i = 0; i < 1_000; i++) clock.now();
      expect(wall.reads() - readsBefore).toBeLessThanOrEqual(64);
      await nextJob();
      const resumedAt = wall.reads();
      for (let i = 0; i < 1_000; i++) clock.now();
      expect(wall.reads() - resumedAt).toBe(1);
    } finally {
      queued.mockRestore();
    }
  });
});
