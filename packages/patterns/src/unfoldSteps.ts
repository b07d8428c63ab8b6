import { Observable, Subject, type Subscription, takeUntil } from 'rxjs';

/** What one step of {@link unfoldSteps} produces: a value to emit, or the step to run next. */
export type Unfolded<S, R> = { readonly emit: R } | { readonly next: S };

/**
 * Runs `step(initial)`, then the step each run asks for, one after another, emitting every `emit`.
 *
 * @remarks
 * A loop written as "concat this step with the next one" nests each iteration's subscribers inside
 * the previous one's, so agents that answer synchronously overflow the stack after a few hundred
 * iterations, and every emission travels through all the nested layers. Here each step is subscribed
 * from a flat `while` loop once the previous one has completed (trampolined), so the stack and the
 * per-emission cost stay constant however many iterations run. A step that asks for more than one
 * follow-up keeps only the last. Unsubscribing unsubscribes the running step.

 */
export function unfoldSteps<S, R>(initial: S, step: (state: S) => Observable<Unfolded<S, R>>): Observable<R> {
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
