import type { SchedulerLike, Subscription } from 'rxjs';
import { scheduleDelay } from '@rxagents/core';

/** One item waiting for buffer space under `BLOCK`. @internal */
export interface ParkedEntry<T> {
  readonly item: T;
  readonly deadline: number;
  /** Called once with `true` when the item entered the buffer, `false` when it was dropped. */
  settle: ((accepted: boolean) => void) | undefined;
  /** No longer parked: taken, expired, cancelled or cleared. */
  cancelled: boolean;
  prev: ParkedEntry<T> | undefined;
  next: ParkedEntry<T> | undefined;
}

/**
 * The FIFO of items parked under `BLOCK`, each with a deadline on a scheduler.
 *
 * @remarks
 * A doubly linked list: parking, taking the oldest and withdrawing any entry (an unsubscribed `offer$`)
 * are O(1), and a withdrawn entry leaves the queue at once, so nothing keeps its item alive. Every entry
 * waits the same `timeout`, so deadlines grow in FIFO order and one timer, set for the oldest entry, is
 * enough. The timer is not cancelled when the queue empties (a stale timer fires, finds nothing due and
 * re-arms only for a live entry), so a queue that keeps filling and emptying costs at most one
 * scheduler action per `timeout`, never one per item; {@link ParkedQueue.clear} cancels it. A `timeout`
 * of `Infinity` parks without a timer.
 *
 * @internal
 */
export class ParkedQueue<T> {
  #head: ParkedEntry<T> | undefined;
  #tail: ParkedEntry<T> | undefined;
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

  /** How many entries are parked. */
  get size(): number {
    return this.#live;
  }

  /** Parks an item until {@link ParkedQueue.take}, {@link ParkedQueue.cancel} or its deadline. */
  park(item: T, settle?: (accepted: boolean) => void): ParkedEntry<T> {
    const tail = this.#tail;
    const entry: ParkedEntry<T> = { item, deadline: this.#scheduler.now() + this.#timeout, settle, cancelled: false, prev: tail, next: undefined };
    if (tail === undefined) this.#head = entry;
    else tail.next = entry;
    this.#tail = entry;
    this.#live += 1;
    if (this.#timer === undefined) this.#arm(this.#timeout);
    return entry;
  }

  /** Removes and returns the oldest entry. */
  take(): ParkedEntry<T> | undefined {
    const entry = this.#head;
    if (entry !== undefined) this.#unlink(entry);
    return entry;
  }

  /** Withdraws a parked entry (its `offer$` was unsubscribed); returns whether it was still parked. */
  cancel(entry: ParkedEntry<T>): boolean {
    if (entry.cancelled) return false;
    this.#unlink(entry);
    return true;
  }

  /** Removes every entry and stops the timer; returns the entries, oldest first. */
  clear(): ParkedEntry<T>[] {
    const live: ParkedEntry<T>[] = [];
    for (let entry = this.#head; entry !== undefined; ) {
      const next = entry.next;
      entry.cancelled = true;
      entry.prev = entry.next = undefined;
      live.push(entry);
      entry = next;
    }
    this.#head = this.#tail = undefined;
    this.#live = 0;
    this.#timer?.unsubscribe();
    this.#timer = undefined;
    return live;
  }

  #unlink(entry: ParkedEntry<T>): void {
    const { prev, next } = entry;
    if (prev === undefined) this.#head = next;
    else prev.next = next;
    if (next === undefined) this.#tail = prev;
    else next.prev = prev;
    entry.prev = entry.next = undefined;
    entry.cancelled = true;
    this.#live -= 1;
  }

  #arm(delay: number): void {
    // An `Infinity` timeout never expires: no timer at all (a scheduler would fire it at once, or spin).
    if (delay === Infinity) return;
    this.#timer = scheduleDelay(this.#scheduler, Math.max(0, delay), () => this.#expire());
  }

  #expire(): void {
    this.#timer = undefined;
    const now = this.#scheduler.now();
    let entry = this.#head;
    while (entry !== undefined && entry.deadline <= now) {
      this.#unlink(entry);
      this.#onExpire(entry);
      entry = this.#head;
    }
    if (entry !== undefined && this.#timer === undefined) this.#arm(entry.deadline - now);
  }
}
