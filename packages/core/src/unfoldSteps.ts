import { Observable, Subject, type Subscription, takeUntil } from 'rxjs';
import { ConfigError } from './errors/ConfigError';

/**
 * What one step of {@link unfoldSteps} produces: a value to emit, or the step to run next.
 *
 * @example
 * ```ts
 * import type { Unfolded } from '@rxagents/core';
 *
 * const emitted: Unfolded<number, string> = { emit: 'done' };
 * const goOn: Unfolded<number, string> = { next: 2 };
 * console.log('emit' in emitted, 'next' in goOn); // true true
 * ```
 */
export type Unfolded<S, R> = { readonly emit: R } | { readonly next: S };

/**
 * Runs `step(initial)`, then the step each run asks for, one after another, emitting every `emit`:
 * a loop of asynchronous steps in constant stack.
 *
 * @remarks
 * A loop written as "concat this step with the next one" (or `expand`, or recursion through
 * `concatMap`) nests each iteration's subscribers inside the previous one's, so steps that complete
 * synchronously (an agent answering from a cache, a scripted test agent) overflow the stack after a
 * few hundred iterations, and every emission travels through all the nested layers. Here each step is
 * subscribed from a flat `while` loop once the previous one has completed (trampolined), so the stack
 * and the per-emission cost stay constant however many iterations run. A step emits any number of
 * `{ emit }` values and at most one `{ next }` (when it emits several, the last one wins); a step that
 * completes without `{ next }` ends the loop. A step that throws or errors fails the result.
 * Unsubscribing unsubscribes the running step, even while it is still being subscribed.
 *
 * @param initial - The first step's state.
 * @param step - Builds the Observable of one step from its state.
 * @returns The values the steps emit, in order; completes when a step asks for no next step.
 *
 * @example
 * ```ts
 * import { of } from 'rxjs';
 * import { unfoldSteps, type Unfolded } from '@rxagents/core';
 *
 * // Counts to 100,000 with synchronous steps: no stack overflow.
 * const count$ = unfoldSteps<number, number>(0, (n) =>
 *   n === 100_000 ? of<Unfolded<number, number>>({ emit: n }) : of<Unfolded<number, number>>({ next: n + 1 }),
 * );
 * count$.subscribe((n) => console.log(n)); // 100000
 * ```
 */
export function unfoldSteps<S, R>(initial: S, step: (state: S) => Observable<Unfolded<S, R>>): Observable<R> {
  if (typeof step !== 'function') throw new ConfigError('unfoldSteps', [{ path: 'step', rule: 'must be a function', received: step }]);
  return new Observable<R>((subscriber) => {
    let current: Subscription | undefined;
    // Stops the running step even while it is still being subscribed: a step whose agent answers
    // synchronously can end the run (a watcher unsubscribes) before `subscribe` returns, and the step
    // must not go on to start queued agents.
    const stopped = new Subject<void>();
    let queued: { readonly state: S } | undefined = { state: initial };
    let pumping = false;

    const pump = (): void => {
      if (pumping) return;
      pumping = true;
      while (queued !== undefined && !subscriber.closed) {
        const { state } = queued;
        queued = undefined;
        let following: { readonly state: S } | undefined;
        let completed = false;
        let next$: Observable<Unfolded<S, R>>;
        try {
          next$ = step(state);
        } catch (error: unknown) {
          // A step builder runs user code (a route, a turn policy); thrown here from a previous step's
          // completion it would escape to RxJS's unhandled-error path and leave the run hanging.
          subscriber.error(error);
          break;
        }
        current = next$.pipe(takeUntil(stopped)).subscribe({
          next: (item) => {
            if ('emit' in item) subscriber.next(item.emit);
            else following = { state: item.next };
          },
          error: (error: unknown) => subscriber.error(error),
          complete: () => {
            completed = true;
            if (following === undefined) subscriber.complete();
            else if (pumping) queued = following;
            else {
              queued = following;
              pump();
            }
          },
        });
        if (!completed) break;
      }
      pumping = false;
    };

    // Registered before the first step runs, so that an unsubscription during it reaches the step.
    subscriber.add(() => {
      stopped.next();
      current?.unsubscribe();
    });
    pump();
  });
}
