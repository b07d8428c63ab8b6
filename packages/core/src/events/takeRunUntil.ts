import { from, isObservable, Observable, type MonoTypeOperatorFunction, type ObservableInput, type SchedulerLike, type Subscription } from 'rxjs';
import * as z from 'zod';
import * as configRules from '../configRules';
import { ConfigError } from '../errors/ConfigError';
import { abortError } from '../internal/abortError';
import { parseConfig } from '../parseConfig';
import { OpenRunNodes } from './OpenRunNodes';
import type { RunEvent } from './RunEvent';
import { serializeError } from './SerializedError';

/**
 * Options of {@link takeRunUntil}.
 *
 * @example
 * ```ts
 * import { asyncScheduler } from 'rxjs';
 * import type { TakeRunUntilOptions } from '@rxagents/core';
 *
 * const options: TakeRunUntilOptions = { scheduler: asyncScheduler };
 * console.log(typeof options.scheduler?.now()); // number
 * ```
 */
export interface TakeRunUntilOptions {
  /**
   * The run's clock, for the `at` of the events that end the open nodes (never before the latest event's).
   * Default: none, the ends take the latest event's `at`.
   */
  readonly scheduler?: SchedulerLike;
}

const TakeRunUntilOptionsSchema = z.strictObject({ scheduler: configRules.scheduler().optional() });

/**
 * `takeUntil` for a run's events that says the cut: when `notifier` emits, the run is unsubscribed (every
 * agent's `AbortSignal` fires) and every node still open ends, visibly, before the stream completes.
 *
 * @remarks
 * Until `notifier` emits (its first value; its completion does nothing) the events pass unchanged. Then
 * the source is unsubscribed and, innermost first, a `call-error` for every open agent call and a
 * `run-end` (`success: false`) for every open run go out, each with an error named `AbortError`
 * (`The run was cancelled`), as a call cancelled inside the run ends: a `runView` of the stream shows
 * the nodes `cancelled`, none `running`. The stream then completes; if it had neither passed nor now
 * ended its root run (the events began mid-run, without the root's `run-start`), it errors with that
 * `AbortError` instead, so a reader still learns the run was cut off. What the source says while it is
 * being unsubscribed is dropped. A notifier that emits after the run ended does nothing. The tracking
 * costs one `Map` operation per node start and end (see {@link OpenRunNodes}), nothing per delta.
 *
 * @param notifier - Cancels the run when it first emits.
 * @param options - The clock of the ends' `at`.
 * @returns An operator on a run's events.
 * @throws `ConfigError` when `notifier` is not an ObservableInput or an option is bad.
 *
 * @example
 * ```ts
 * import { NEVER, Subject } from 'rxjs';
 * import { defineAgent, invoke$, observeRun, takeRunUntil } from '@rxagents/core';
 *
 * const waiting = defineAgent('waiting', () => NEVER);
 * const stop = new Subject<void>();
 * observeRun('wait', 'go', (run) => invoke$(waiting, 'go', { run }))
 *   .pipe(takeRunUntil(stop))
 *   .subscribe((event) => console.log(event.type)); // run-start, call-start, then call-error, run-end
 * stop.next();
 * ```
 */
export function takeRunUntil(notifier: ObservableInput<unknown>, options: TakeRunUntilOptions = {}): MonoTypeOperatorFunction<RunEvent> {
  if (!isObservableInput(notifier)) throw new ConfigError('takeRunUntil', [{ path: 'notifier', rule: 'must be an ObservableInput', received: notifier }]);
  const { scheduler } = parseConfig(TakeRunUntilOptionsSchema, options, 'takeRunUntil options');
  return (source) =>
    new Observable<RunEvent>((subscriber) => {
      const open = new OpenRunNodes();
      let cut = false;
      let rootEnded = false;
      let run: Subscription | undefined;
      let stop: Subscription | undefined;
      stop = from(notifier).subscribe(() => {
        if (cut || subscriber.closed) return;
        cut = true;
        stop?.unsubscribe();
        run?.unsubscribe();
        const latest = open.latestAt;
        const now = scheduler?.now();
        const at = now === undefined ? latest : Math.max(now, latest ?? now);
        const error = abortError('The run was cancelled');
        for (const event of open.end(serializeError(error), at)) {
          if (event.type === 'run-end' && event.parentCallId === null) rootEnded = true;
          subscriber.next(event);
        }
        if (rootEnded) subscriber.complete();
        else subscriber.error(error);
      });
      if (cut) {
        // It emitted at once, before the run was subscribed.
        stop.unsubscribe();
        return;
      }
      run = source.subscribe({
        next: (event) => {
          if (cut) return;
          open.track(event);
          if (event.type === 'run-end' && event.parentCallId === null) rootEnded = true;
          subscriber.next(event);
        },
        error: (error: unknown) => subscriber.error(error),
        complete: () => subscriber.complete(),
      });
      return () => {
        stop?.unsubscribe();
        run?.unsubscribe();
      };
    });
}

function isObservableInput(value: unknown): value is ObservableInput<unknown> {
  if (isObservable(value)) return true;
  if (typeof value === 'string') return true;
  if (typeof value !== 'object' || value === null) return false;
  return typeof (value as PromiseLike<unknown>).then === 'function' || Symbol.iterator in value || Symbol.asyncIterator in value || typeof (value as ReadableStream).getReader === 'function';
}
