import type { SchedulerLike, Subscription } from 'rxjs';
import { scheduleDelay } from '@rxagents/core';

/** One item waiting for buffer space under `BLOCK`. @internal */
export interface ParkedEntry<T> {
  readonly item: T;
  readonly deadline: number;
  /** Called once with `true` when the item entered the buffer, `false` when it was dropped. */
  settle: ((accepted: boolean) => void) | undefined;
  cancelled: boolean;
}

/**
 * The FIFO of items parked under `BLOCK`, each with a deadline on a scheduler.
 *
 * @remarks
 * Every entry waits the same `timeout`, so deadlines grow in FIFO order and one timer, set for the
 * oldest live entry, is enough. The timer is not cancelled when the queue empties (a stale timer fires,
 * finds nothing due and re-arms only for a live entry), so a queue that keeps filling and emptying costs
 * at most one scheduler action per `timeout`, never one per item; {@link ParkedQueue.clear} cancels it.
 * Cancelled entries stay as tombstones and are skipped; the array is compacted once its dead prefix is
 * large, so every operation is amortised O(1). A `timeout` of `Infinity` parks without a timer.
 *
 * @internal
 */
export class ParkedQueue<T> {
  #entries: ParkedEntry<T>[] = [];
  #head = 0;
  #live = 0;
  #timer: Subscription | undefined;
  readonly #timeout: number;
  readonly #scheduler: SchedulerLike;
  readonly #onExpire: (entry: ParkedEntry<T>) => void;

  constructor(timeout: number, scheduler: SchedulerLike, onExpire: (entry: ParkedEntry<T>) => void) {
    this.#timeout = timeout;
    this.#scheduler = scheduler;
    this.#onExpire = onExpire;
  }

  /** How many entries are parked (cancelled ones excluded). */
  get size(): number {
    return this.#live;
  }

  /** Parks an item until {@link ParkedQueue.take} or its deadline. */
  park(item: T, settle?: (accepted: boolean) => void): ParkedEntry<T> {
    const entry: ParkedEntry<T> = { item, deadline: this.#scheduler.now() + this.#timeout, settle, cancelled: false };
    this.#entries.push(entry);
    this.#live += 1;
    if (this.#timer === undefined) this.#arm(this.#timeout);
    return entry;
  }

  /** Removes and returns the oldest live entry. */
  take(): ParkedEntry<T> | undefined {
    const entry = this.#next();
    if (entry !== undefined) this.#remove();
    return entry;
  }

  /** Withdraws a parked entry (its `offer$` was unsubscribed); returns whether it was still parked. */
  cancel(entry: ParkedEntry<T>): boolean {
    if (entry.cancelled) return false;
    entry.cancelled = true;
    this.#live -= 1;
    if (this.#live === 0) this.#empty();
    return true;
  }

  /** Removes every live entry and stops the timer; returns the entries, oldest first. */
  clear(): ParkedEntry<T>[] {
    const live: ParkedEntry<T>[] = [];
    for (let i = this.#head; i < this.#entries.length; i++) {
      const entry = this.#entries[i] as ParkedEntry<T>;
      if (!entry.cancelled) {
        entry.cancelled = true;
        live.push(entry);
      }
    }
    this.#empty();
    this.#timer?.unsubscribe();
    this.#timer = undefined;
    return live;
  }

  #next(): ParkedEntry<T> | undefined {
    while (this.#head < this.#entries.length) {
      const entry = this.#entries[this.#head] as ParkedEntry<T>;
      if (!entry.cancelled) return entry;
      this.#head += 1;
    }
    return undefined;
  }

  #remove(): void {
    const entry = this.#entries[this.#head] as ParkedEntry<T>;
    entry.cancelled = true;
    this.#head += 1;
    this.#live -= 1;
    if (this.#live === 0) this.#empty();
    else if (this.#head >= 1024 && this.#head * 2 >= this.#entries.length) {
      this.#entries = this.#entries.slice(this.#head);
      this.#head = 0;
    }
  }

  #empty(): void {
    this.#entries = [];
    this.#head = 0;
    this.#live = 0;
  }

  #arm(delay: number): void {
    // An `Infinity` timeout never expires: no timer at all (a scheduler would fire it at once, or spin).
    if (delay === Infinity) return;
    this.#timer = scheduleDelay(this.#scheduler, Math.max(0, delay), () => this.#expire());
  }

  #expire(): void {
    this.#timer = undefined;
    const now = this.#scheduler.now();
    let entry = this.#next();
    while (entry !== undefined && entry.deadline <= now) {
      this.#remove();
      this.#onExpire(entry);
      entry = this.#next();
    }
    if (entry !== undefined && this.#timer === undefined) this.#arm(entry.deadline - now);
  }
}
