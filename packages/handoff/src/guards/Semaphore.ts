import { Observable, type SchedulerLike } from 'rxjs';

/** A queued `run`: a node of the waiters' doubly linked list, so a cancelled waiter unlinks in O(1). */
interface Waiter {
  readonly start: () => void;
  previous: Waiter | undefined;
  next: Waiter | undefined;
}

/**
 * A counting semaphore over Observables: `run(work$)` subscribes to `work$` once a permit is free and
 * releases it when `work$` ends or is unsubscribed. Waiters are served in arrival order, O(1) each.
 *
 * Cancellation never starts work: a waiter that unsubscribes is unlinked at once (nothing of it is kept),
 * and a permit freed by an unsubscription is handed on by a zero-delay action on `scheduler`, not from
 * inside the teardown. An unsubscription or an `AbortSignal` often cancels many runs in one synchronous
 * sweep (`merge(...).unsubscribe()`, one signal shared by every call); handing the permit on at once
 * would start the next waiter before its own cancellation had run. A permit freed by work that completes
 * or errors is handed on at once.
 */
export class Semaphore {
  private available: number;
  private head: Waiter | undefined;
  private tail: Waiter | undefined;
  private queued = 0;
  private releases = 0;
  private draining = false;

  /** `permits <= 0` means unlimited. */
  constructor(
    permits: number,
    private readonly scheduler: SchedulerLike,
  ) {
    this.available = permits <= 0 ? Number.POSITIVE_INFINITY : permits;
  }

  /** How many runs wait for a permit. */
  get waiting(): number {
    return this.queued;
  }

  run<T>(work: Observable<T>): Observable<T> {
    return new Observable<T>((subscriber) => {
      let holding = false;
      let waiter: Waiter | undefined;
      let inner: { unsubscribe(): void } | undefined;
      const finished = (): void => {
        if (!holding) return;
        holding = false;
        this.release();
      };
      const start = (): void => {
        waiter = undefined;
        holding = true;
        inner = work.subscribe({
          next: (value) => subscriber.next(value),
          error: (error: unknown) => {
            finished();
            subscriber.error(error);
          },
          complete: () => {
            finished();
            subscriber.complete();
          },
        });
        // The caller may have left while `work` was being subscribed (before `inner` was set).
        if (subscriber.closed) inner.unsubscribe();
      };
      if (this.available > 0) {
        this.available -= 1;
        start();
      } else {
        waiter = this.enqueue(start);
      }
      return () => {
        if (waiter !== undefined) {
          this.unlink(waiter);
          waiter = undefined;
        }
        inner?.unsubscribe();
        if (!holding) return;
        holding = false;
        if (this.queued === 0) this.release();
        else this.scheduler.schedule(() => this.release());
      };
    });
  }

  /**
   * Hands the permit to the next waiter, or frees it. Trampolined: a waiter whose work ends synchronously
   * releases from inside `start()`; that release is counted and served by the loop already running, so
   * thousands of queued synchronous handoffs drain in constant stack.
   */
  private release(): void {
    this.releases += 1;
    if (this.draining) return;
    this.draining = true;
    try {
      while (this.releases > 0) {
        this.releases -= 1;
        const next = this.head;
        if (next === undefined) {
          this.available += 1;
        } else {
          this.unlink(next);
          next.start();
        }
      }
    } finally {
      this.draining = false;
    }
  }

  private enqueue(start: () => void): Waiter {
    const waiter: Waiter = { start, previous: this.tail, next: undefined };
    if (this.tail === undefined) this.head = waiter;
    else this.tail.next = waiter;
    this.tail = waiter;
    this.queued += 1;
    return waiter;
  }

  private unlink(waiter: Waiter): void {
    if (waiter.previous === undefined) this.head = waiter.next;
    else waiter.previous.next = waiter.next;
    if (waiter.next === undefined) this.tail = waiter.previous;
    else waiter.next.previous = waiter.previous;
    waiter.previous = undefined;
    waiter.next = undefined;
    this.queued -= 1;
  }
}
