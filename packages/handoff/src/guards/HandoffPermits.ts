import { Observable, type SchedulerLike } from 'rxjs';
import { ChainKeys } from './ChainKeys';
import { Semaphore } from './Semaphore';

/** A chain the target runs under: how many runs, how many re-entries wait or run on its lane. */
interface RunningChain {
  holders: number;
  borrowers: number;
  readonly lane: Semaphore;
}

/**
 * The concurrency guard of one `Handoff`: its semaphore (`maxConcurrent`), and, when `detectCycles` is
 * off, the re-entry lanes.
 *
 * A nested re-entry from within the target runs on the permit its caller holds: waiting for one would
 * hang forever once the recursion is `maxConcurrent` deep. Re-entries from one caller take turns on that
 * permit (its lane), so a target that fans out through its own handoff runs one branch at a time. With
 * `detectCycles` on, such a re-entry is refused by the cycle check instead, and only the semaphore counts.
 */
export class HandoffPermits {
  private readonly semaphore: Semaphore;
  /** Chains the target is running under (kept only when re-entries are tracked). */
  private readonly running = new Map<number, RunningChain>();
  private readonly keys = new ChainKeys();

  constructor(
    maxConcurrent: number,
    private readonly scheduler: SchedulerLike,
    private readonly targetId: string,
    private readonly tracksReentry: boolean,
  ) {
    this.semaphore = new Semaphore(maxConcurrent, scheduler);
  }

  /** Notes that `path` is `base` extended by the sender (O(1) bookkeeping for a later re-entry check). */
  extend(base: readonly string[], path: readonly string[]): void {
    if (this.tracksReentry) this.keys.extend(base, path);
  }

  /** `work$` under a permit, or on its caller's lane when it re-enters from within the target. */
  run<T>(chain: readonly string[], work$: Observable<T>): Observable<T> {
    if (!this.tracksReentry) return this.semaphore.run(work$);
    const tracked$ = this.tracked(chain, work$);
    const caller = this.reentryOf(this.keys.keyOf(chain));
    return caller === undefined ? this.semaphore.run(tracked$) : this.onLane(caller, tracked$);
  }

  /**
   * The key of the running chain that a handoff along `path` re-enters from within: the innermost prefix
   * of `path` that is such a chain and is followed by the target. Undefined for an independent caller.
   * O(1) for a direct re-entry (`[...chain, target]`).
   */
  private reentryOf(path: number): number | undefined {
    for (let node = this.keys.parentOf(path); node !== undefined; node = this.keys.parentOf(node.parent)) {
      if (node.id === this.targetId && this.running.has(node.parent)) return node.parent;
    }
    return undefined;
  }

  /** Records, while `work$` runs, that the target runs under `chain` (read by `reentryOf`). */
  private tracked<T>(chain: readonly string[], work$: Observable<T>): Observable<T> {
    return new Observable<T>((subscriber) => {
      // Keyed when it starts running, not when queued: keys are forgotten whenever nothing runs.
      const key = this.keys.keyOf(chain);
      const running = this.enter(key);
      running.holders += 1;
      const subscription = work$.subscribe(subscriber);
      return () => {
        subscription.unsubscribe();
        running.holders -= 1;
        this.leave(key, running);
      };
    });
  }

  /** `work$` on the lane of the running chain `key`: one re-entry at a time on its caller's permit. */
  private onLane<T>(key: number, work$: Observable<T>): Observable<T> {
    return new Observable<T>((subscriber) => {
      const running = this.enter(key);
      running.borrowers += 1;
      const subscription = running.lane.run(work$).subscribe(subscriber);
      return () => {
        subscription.unsubscribe();
        running.borrowers -= 1;
        this.leave(key, running);
      };
    });
  }

  private enter(key: number): RunningChain {
    let running = this.running.get(key);
    if (running === undefined) {
      running = { holders: 0, borrowers: 0, lane: new Semaphore(1, this.scheduler) };
      this.running.set(key, running);
    }
    return running;
  }

  private leave(key: number, running: RunningChain): void {
    if (running.holders === 0 && running.borrowers === 0 && this.running.get(key) === running) this.running.delete(key);
    // With nothing running, no key is referred to: forget them all, so interned chains never pile up.
    if (this.running.size === 0) this.keys.clear();
  }
}
