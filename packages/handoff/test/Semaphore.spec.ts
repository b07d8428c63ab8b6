import { NEVER, Observable, Subject, VirtualTimeScheduler } from 'rxjs';
import { Semaphore } from '../src/guards/Semaphore';

/** Work that counts how often it was started. */
const counted = (starts: { count: number }): Observable<never> =>
  new Observable<never>(() => {
    starts.count += 1;
  });

describe('Semaphore (internal)', () => {
  it('a cancelled waiter is dropped from the queue at once, not when the holder finishes', () => {
    const semaphore = new Semaphore(1, new VirtualTimeScheduler());
    const holder = semaphore.run(NEVER).subscribe();
    const waiters = Array.from({ length: 100_000 }, () => semaphore.run(NEVER).subscribe());
    expect(semaphore.waiting).toBe(100_000);
    for (const waiter of waiters) waiter.unsubscribe();
    expect(semaphore.waiting).toBe(0);
    holder.unsubscribe();
  });

  it('cancelling a holder and every waiter in one go starts none of the waiters', () => {
    const scheduler = new VirtualTimeScheduler();
    const semaphore = new Semaphore(2, scheduler);
    const starts = { count: 0 };
    const all = new Subject<void>();
    const subscriptions = Array.from({ length: 1_000 }, () => semaphore.run(counted(starts)).subscribe());
    all.subscribe(() => subscriptions.forEach((subscription) => subscription.unsubscribe()));
    all.next();
    scheduler.flush();
    expect(starts.count).toBe(2);
    expect(semaphore.waiting).toBe(0);
    // The permits came back: two new runs start at once.
    semaphore.run(counted(starts)).subscribe();
    semaphore.run(counted(starts)).subscribe();
    expect(starts.count).toBe(4);
  });

  it('a permit freed by a cancellation goes to the next waiter that is still waiting, on the scheduler', () => {
    const scheduler = new VirtualTimeScheduler();
    const semaphore = new Semaphore(1, scheduler);
    const starts = { count: 0 };
    const holder = semaphore.run(NEVER).subscribe();
    semaphore.run(counted(starts)).subscribe();
    holder.unsubscribe();
    expect(starts.count).toBe(0);
    scheduler.flush();
    expect(starts.count).toBe(1);
  });
});
