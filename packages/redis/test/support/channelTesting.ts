import { asyncScheduler, type SchedulerLike } from 'rxjs';

/** A consumer handler that records each item and holds it until the test releases it: a reader paced by the test. */
export interface PacedReader<T> {
  readonly seen: T[];
  readonly handler: (item: T) => Promise<void>;
  /** Lets the consumer go on past the oldest item it holds. */
  release(): void;
  /** Releases what it holds and every item from now on. */
  releaseAll(): void;
}

export function pacedReader<T>(): PacedReader<T> {
  const seen: T[] = [];
  const held: (() => void)[] = [];
  let free = false;
  return {
    seen,
    handler: (item) => {
      seen.push(item);
      return free ? Promise.resolve() : new Promise<void>((resolve) => held.push(resolve));
    },
    release: () => held.shift()?.(),
    releaseAll: () => {
      free = true;
      for (const resolve of held.splice(0)) resolve();
    },
  };
}

/** `asyncScheduler`, counting what is scheduled on it: a test waits for a number of polls, not for time. */
export function countingScheduler(): SchedulerLike & { readonly scheduled: number } {
  let scheduled = 0;
  return {
    get scheduled() {
      return scheduled;
    },
    now: () => asyncScheduler.now(),
    schedule: (...args: Parameters<SchedulerLike['schedule']>) => {
      scheduled += 1;
      return asyncScheduler.schedule(...args);
    },
  };
}
