import { Observable } from 'rxjs';

interface Waiter {
  readonly start: () => void;
  cancelled: boolean;
}

/**
 * A counting semaphore over Observables: `run(work$)` subscribes to `work$` once a permit is free and
 * releases it when `work$` ends or is unsubscribed. Waiters are served in arrival order, O(1) amortised
 * (a head index, not `Array.prototype.shift`); a waiter that unsubscribes is skipped.
 */
export class Semaphore {
  private available: number;
  private waiters: Waiter[] = [];
  private head = 0;
  private releases = 0;
  private draining = false;

  /** `permits <= 0` means unlimited. */
  constructor(permits: number) {
    this.available = permits <= 0 ? Number.POSITIVE_INFINITY : permits;
  }

  run<T>(work: Observable<T>): Observable<T> {
    return new Observable<T>((subscriber) => {
      let holding = false;
      let inner: { unsubscribe(): void } | undefined;
      const release = (): void => {
        if (!holding) return;
        holding = false;
        this.release();
      };
      const start = (): void => {
        holding = true;
        inner = work.subscribe({
          next: (value) => subscriber.next(value),
          error: (error: unknown) => {
            release();
            subscriber.error(error);
          },
          complete: () => {
            release();
            subscriber.complete();
          },
        });
      };
      let waiter: Waiter | undefined;
      if (this.available > 0) {
        this.available -= 1;
        start();
      } else {
        waiter = { start, cancelled: false };
        this.waiters.push(waiter);
      }
      return () => {
        if (waiter !== undefined) waiter.cancelled = true;
        inner?.unsubscribe();
        release();
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
        this.handOver();
      }
    } finally {
      this.draining = false;
    }
  }

  private handOver(): void {
    while (this.head < this.waiters.length) {
      const next = this.waiters[this.head] as Waiter;
      this.head += 1;
      this.compact();
      if (!next.cancelled) {
        next.cancelled = true;
        next.start();
        return;
      }
    }
    this.available += 1;
  }

  private compact(): void {
    if (this.head === this.waiters.length) {
      this.waiters = [];
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > this.waiters.length) {
      this.waiters = this.waiters.slice(this.head);
      this.head = 0;
    }
  }
}
