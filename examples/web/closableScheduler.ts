import { asyncScheduler, Subscription, type SchedulerAction, type SchedulerLike } from 'rxjs';

/**
 * `base` (default `asyncScheduler`) with a `close()` that cancels everything still scheduled on it, so
 * a server that stops leaves no timer behind (a finished run's expiry, a heartbeat, a grace period).
 */
export function closableScheduler(base: SchedulerLike = asyncScheduler): SchedulerLike & { close(): void } {
  const scheduled = new Subscription();
  return {
    now: () => base.now(),
    schedule<T>(work: (this: SchedulerAction<T>, state?: T) => void, delay?: number, state?: T): Subscription {
      const action = base.schedule(work, delay, state);
      scheduled.add(action);
      action.add(() => scheduled.remove(action));
      return action;
    },
    close: () => scheduled.unsubscribe(),
  };
}
