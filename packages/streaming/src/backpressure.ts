import { asyncScheduler, from, Observable, type ObservableInput, type OperatorFunction, type SchedulerLike, Subject, takeUntil } from 'rxjs';
import { z } from 'zod';
import { ConfigError, configRules, parseConfig } from '@rxagents/core';
import { BackpressureStrategy, BackpressureStrategySchema } from './BackpressureStrategy';
import type { DropReason } from './DropReason';
import { BufferOverflowError } from './errors/BufferOverflowError';
import { Overflow, overflow } from './internal/overflow';
import { clearParked, createParkedQueue, parkItem, takeParked } from './internal/ParkedQueue';
import { createRingBuffer, ringClear, ringFull, ringPush, ringShift } from './internal/RingBuffer';

/**
 * The zod schema of {@link BackpressureOptions}, exported so settings can be validated from JSON.
 *
 * @example
 * ```ts
 * import { BackpressureOptionsSchema } from '@rxagents/streaming';
 *
 * const options = BackpressureOptionsSchema.parse({ concurrency: 2 });
 * console.log(options.bufferSize, options.backpressure); // 256 DROP_OLDEST
 * ```
 */
export const BackpressureOptionsSchema = z.strictObject({
  concurrency: configRules.positiveInt().default(1),
  bufferSize: configRules.positiveInt().default(256),
  backpressure: BackpressureStrategySchema.default(BackpressureStrategy.DROP_OLDEST),
  offerTimeout: configRules.delayMs().default(5000),
  maxPendingOffers: configRules.nonNegativeInt().default(1024),
  scheduler: configRules.scheduler().optional(),
  onDrop: configRules.function<(value: never, reason: DropReason) => void>().optional(),
});

/**
 * Options of {@link backpressure}.
 *
 * @remarks
 * Validated with {@link BackpressureOptionsSchema} when the operator is created.
 *
 * @example
 * ```ts
 * import { BackpressureStrategy, type BackpressureOptions } from '@rxagents/streaming';
 *
 * const options: BackpressureOptions<string> = {
 *   concurrency: 2,
 *   bufferSize: 64,
 *   backpressure: BackpressureStrategy.BLOCK,
 *   offerTimeout: 1_000,
 *   maxPendingOffers: 16,
 *   onDrop: (value, reason) => console.warn(`dropped ${value}: ${reason}`),
 * };
 * ```
 */
export interface BackpressureOptions<T> {
  /** How many projects may run at once. Default 1 (a bounded `concatMap`). */
  readonly concurrency?: number;
  /** How many values may wait while every slot is busy. Default 256. */
  readonly bufferSize?: number;
  /** What happens to a value that finds the buffer full. Default `DROP_OLDEST`, as for channels (the same option name as a channel's `backpressure`). */
  readonly backpressure?: BackpressureStrategy;
  /** Under `BLOCK`: how long (ms, on `scheduler`) a value may wait for buffer space before it is dropped: 0 to `MAX_DELAY_MS`, or `Infinity` to wait for ever. Default 5000. */
  readonly offerTimeout?: number;
  /** Under `BLOCK`: how many values may wait for space at once; more are dropped at once. Default 1024. */
  readonly maxPendingOffers?: number;
  /** The clock of `offerTimeout`. Default `asyncScheduler`. */
  readonly scheduler?: SchedulerLike;
  /** Receives every dropped value and why it was dropped. */
  readonly onDrop?: (value: T, reason: DropReason) => void;
}

/**
 * Projects each value to an inner source with bounded concurrency and a bounded, strategy-driven buffer:
 * the bounded `concatMap`/`mergeMap` that RxJS lacks.
 *
 * @remarks
 * Runs `project(value, index)` for at most `concurrency` values at once (`index` counts the values
 * projected, so dropped values take no index) and merges their outputs. Values arriving while every slot
 * is busy wait in a buffer of `bufferSize`; when it is full, the `backpressure` option decides: `DROP_OLDEST` drops the
 * oldest waiting value, `DROP_NEWEST` the arriving one, `ERROR` fails downstream with
 * {@link BufferOverflowError}, and `BLOCK` parks the value for up to `offerTimeout` on `scheduler` (at
 * most `maxPendingOffers` parked; more are dropped) until buffer space frees up. `onDrop` receives every
 * dropped value. Source completion drains the buffer and the parked values, then completes; a source or
 * project error fails at once; unsubscription discards the buffer and cancels the running projects.
 * Every step is O(1): ring buffer, one timer for all parked values.
 *
 * @param project - Maps a value (and its index) to an `ObservableInput`.
 * @param options - Concurrency, buffer, its `backpressure` strategy and the timing of `BLOCK`.
 * @throws {@link @rxagents/core!ConfigError | ConfigError} when `project` is not a function or an option breaks its rule.
 *
 * @example
 * ```ts
 * import { backpressure, BackpressureStrategy } from '@rxagents/streaming';
 * import { interval, take, timer, map } from 'rxjs';
 *
 * // A fast producer, a slow renderer: keep the 3 newest values while one render runs.
 * interval(10).pipe(
 *   take(20),
 *   backpressure((n) => timer(50).pipe(map(() => `rendered ${n}`)), {
 *     bufferSize: 3,
 *     backpressure: BackpressureStrategy.DROP_OLDEST,
 *     onDrop: (n, reason) => console.log(`skipped ${n} (${reason})`),
 *   }),
 * ).subscribe(console.log);
 * ```
 *
 * @see {@link StreamingChannel} for the same strategies on a multi-subscriber channel.
 */
export function backpressure<T, R>(
  project: (value: T, index: number) => ObservableInput<R>,
  options: BackpressureOptions<T> = {},
): OperatorFunction<T, R> {
  if (typeof project !== 'function') throw new ConfigError('backpressure', [{ path: 'project', rule: 'must be a function', received: project }]);
  const { concurrency, bufferSize, backpressure: strategy, offerTimeout, maxPendingOffers, scheduler = asyncScheduler, onDrop } = parseConfig(
    BackpressureOptionsSchema,
    options,
    'backpressure options',
  );
  const drop = onDrop as ((value: T, reason: DropReason) => void) | undefined;

  return (source) =>
    new Observable<R>((subscriber) => {
      const buffer = createRingBuffer<T>(bufferSize);
      // Fires on teardown. The source is subscribed through takeUntil(stop), so a synchronous source stops
      // at once when downstream unsubscribes (take(n) on an endless synchronous source) or fails, even
      // before its subscribe() call has returned a Subscription.
      const stop = new Subject<void>();
      let active = 0;
      let index = 0;
      let sourceDone = false;
      let draining = false;

      const fail = (error: unknown): void => subscriber.error(error);
      const dropped = (value: T, reason: DropReason): void => {
        if (drop === undefined) return;
        try {
          drop(value, reason);
        } catch (error) {
          fail(error);
        }
      };
      const parked = createParkedQueue<T>(offerTimeout, scheduler, (entry) => {
        dropped(entry.item, 'OFFER_TIMEOUT');
        drain();
      });

      // One observer for every project: all a completion does is free a slot, whichever project it was.
      const projectObserver = {
        next: (result: R) => subscriber.next(result),
        error: fail,
        complete: () => {
          active -= 1;
          drain();
        },
      };
      // Subscribes the project's source with the subscriber it is handed, after adding that subscriber to
      // the outer one: teardown then closes it, which stops a synchronous project at once (take(n) on an
      // endless one), and it leaves the outer subscriber by itself when the project ends. One instance
      // per subscription, reading the source from `nextProject`, so a project allocates no closure.
      let nextProject: Observable<R> | undefined;
      const projectGate = new Observable<R>((projectSubscriber) => {
        const inner = nextProject as Observable<R>;
        nextProject = undefined;
        subscriber.add(projectSubscriber);
        return inner.subscribe(projectSubscriber);
      });

      const run = (value: T): void => {
        active += 1;
        try {
          nextProject = from(project(value, index++));
        } catch (error) {
          fail(error);
          return;
        }
        projectGate.subscribe(projectObserver);
      };

      const drain = (): void => {
        if (draining) return;
        draining = true;
        while (active < concurrency && buffer.size > 0 && !subscriber.closed) {
          const value = ringShift(buffer);
          const next = takeParked(parked);
          if (next !== undefined) ringPush(buffer, next.item);
          run(value);
        }
        draining = false;
        if (sourceDone && active === 0 && buffer.size === 0 && parked.size === 0) subscriber.complete();
      };

      // A value that finds a free slot and nothing waiting runs at once, as the buffer would have run it
      // first anyway, and `drain` then takes over what the project's run left in the buffer.
      const runNow = (value: T): void => {
        draining = true;
        run(value);
        draining = false;
        drain();
      };

      const evictOldest = (oldest: T): void => dropped(oldest, 'DROP_OLDEST');

      const accept = (value: T): void => {
        if (!draining && active < concurrency && buffer.size === 0 && parked.size === 0 && !subscriber.closed) {
          runNow(value);
          return;
        }
        if (!ringFull(buffer) && parked.size === 0) {
          ringPush(buffer, value);
          drain();
          return;
        }
        switch (overflow(strategy, buffer, value, evictOldest)) {
          case Overflow.Replaced:
            return;
          case Overflow.DroppedNewest:
            dropped(value, 'DROP_NEWEST');
            return;
          case Overflow.Failed:
            dropped(value, 'OVERFLOW');
            fail(new BufferOverflowError('backpressure', bufferSize));
            return;
          default:
            if (parked.size < maxPendingOffers) parkItem(parked, value);
            else dropped(value, 'PENDING_OFFERS_FULL');
        }
      };

      subscriber.add(() => {
        stop.next();
        clearParked(parked);
        ringClear(buffer);
      });

      source.pipe(takeUntil(stop)).subscribe({
        next: accept,
        error: fail,
        complete: () => {
          sourceDone = true;
          drain();
        },
      });
    });
}
