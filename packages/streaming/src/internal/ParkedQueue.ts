import type { SchedulerLike, Subscription } from 'rxjs';
import { scheduleDelay } from '@rxagents/core';

/** One item waiting for buffer space under `BLOCK`. @internal */
export interface ParkedEntry<T> {
  readonly item: T;
  readonly deadline: number;
  /** Called once with `true` when the item entered the buffer, `false` when it was dropped. */
  settle: ((accepted: boolean) => void) | undefined;
  /** Called instead of `settle` when `error()` ended the channel while the item was parked. */
  refuse: ((error: Error) => void) | undefined;
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
 * scheduler action per `timeout`, never one per item; {@link clearParked} cancels it. A `timeout`
 * of `Infinity` parks without a timer.
 *
 * A plain record made by {@link createParkedQueue} and handled by free functions, for the reason given
 * at `RingBuffer`.
 *
 * @internal
 */
export interface ParkedQueue<T> {
  /** How many entries are parked. */
  size: number;
  head: ParkedEntry<T> | undefined;
  tail: ParkedEntry<T> | undefined;
  timer: Subscription | undefined;
  readonly timeout: number;
  readonly scheduler: SchedulerLike;
  readonly onExpire: (entry: ParkedEntry<T>) => void;
}

/** An empty queue whose entries expire after `timeout` ms on `scheduler`, each handed to `onExpire`. @internal */
export function createParkedQueue<T>(timeout: number, scheduler: SchedulerLike, onExpire: (entry: ParkedEntry<T>) => void): ParkedQueue<T> {
  return { size: 0, head: undefined, tail: undefined, timer: undefined, timeout, scheduler, onExpire };
}

/** Parks an item until {@link takeParked}, {@link cancelParked} or its deadline. @internal */
export function parkItem<T>(queue: ParkedQueue<T>, item: T, settle?: (accepted: boolean) => void): ParkedEntry<T> {
  const tail = queue.tail;
  const entry: ParkedEntry<T> = { item, deadline: queue.scheduler.now() + queue.timeout, settle, refuse: undefined, cancelled: false, prev: tail, next: undefined };
  if (tail === undefined) queue.head = entry;
  else tail.next = entry;
  queue.tail = entry;
  queue.size += 1;
  if (queue.timer === undefined) arm(queue, queue.timeout);
  return entry;
}

/** Removes and returns the oldest entry. @internal */
export function takeParked<T>(queue: ParkedQueue<T>): ParkedEntry<T> | undefined {
  const entry = queue.head;
  if (entry !== undefined) unlink(queue, entry);
  return entry;
}

/** Withdraws a parked entry (its `offer$` was unsubscribed); returns whether it was still parked. @internal */
export function cancelParked<T>(queue: ParkedQueue<T>, entry: ParkedEntry<T>): boolean {
  if (entry.cancelled) return false;
  unlink(queue, entry);
  return true;
}

/** Removes every entry and stops the timer; returns the entries, oldest first. @internal */
export function clearParked<T>(queue: ParkedQueue<T>): ParkedEntry<T>[] {
  const live: ParkedEntry<T>[] = [];
  for (let entry = queue.head; entry !== undefined; ) {
    const next = entry.next;
    entry.cancelled = true;
    entry.prev = entry.next = undefined;
    live.push(entry);
    entry = next;
  }
  queue.head = queue.tail = undefined;
  queue.size = 0;
  queue.timer?.unsubscribe();
  queue.timer = undefined;
  return live;
}

function unlink<T>(queue: ParkedQueue<T>, entry: ParkedEntry<T>): void {
  const { prev, next } = entry;
  if (prev === undefined) queue.head = next;
  else prev.next = next;
  if (next === undefined) queue.tail = prev;
  else next.prev = prev;
  entry.prev = entry.next = undefined;
  entry.cancelled = true;
  queue.size -= 1;
}

function arm<T>(queue: ParkedQueue<T>, delay: number): void {
  // An `Infinity` timeout never expires: no timer at all (a scheduler would fire it at once, or spin).
  if (delay === Infinity) return;
  queue.timer = scheduleDelay(queue.scheduler, Math.max(0, delay), () => expire(queue));
}

function expire<T>(queue: ParkedQueue<T>): void {
  queue.timer = undefined;
  const now = queue.scheduler.now();
  let entry = queue.head;
  while (entry !== undefined && entry.deadline <= now) {
    unlink(queue, entry);
    queue.onExpire(entry);
    entry = queue.head;
  }
  if (entry !== undefined && queue.timer === undefined) arm(queue, entry.deadline - now);
}
