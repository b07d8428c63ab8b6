import { Observable, type Subscription } from 'rxjs';

/**
 * Subscribes `call(0)`, `call(1)`, ... one after another, each once the previous one completed, and
 * emits their values through `project`; `stopAfter` ends the whole sequence right after the value it accepts (that
 * value is emitted, the current call is unsubscribed, later ones never start).
 *
 * @remarks
 * What `from(items).pipe(concatMap(call), map(project), takeWhile(..., true))` does, with one subscriber per call
 * rather than four operators and an inner subscriber: the direct driver calls agents this way at every
 * turn of a debate, a sequence or a supervisor. Calls that complete synchronously run in a loop, not
 * in nested callbacks, so a long batch of synchronous calls runs in constant stack.
 */
export function oneAfterAnother<T, R>(count: number, call: (index: number) => Observable<T>, project: (value: T) => R, stopAfter: (value: R) => boolean): Observable<R> {
  return new Observable<R>((subscriber) => {
    let current: Subscription | undefined;
    let index = 0;
    let looping = false;
    // Set when a call completes while `subscribe` is still running: the loop, not the callback, starts the next.
    let completedInLoop = false;
    const next = (): void => {
      looping = true;
      while (!subscriber.closed) {
        if (index >= count) {
          subscriber.complete();
          break;
        }
        completedInLoop = false;
        current = call(index++).subscribe({
          next: (item) => {
            const value = project(item);
            subscriber.next(value);
            if (stopAfter(value)) subscriber.complete();
          },
          error: (error: unknown) => subscriber.error(error),
          complete: () => {
            if (looping) completedInLoop = true;
            else next();
          },
        });
        // Ended while the call was being subscribed (a synchronous stop, an unsubscription from a value's
        // receiver): the teardown ran before `current` was this call, so the call is stopped here.
        if (subscriber.closed) current.unsubscribe();
        if (!completedInLoop) break;
      }
      looping = false;
    };
    subscriber.add(() => current?.unsubscribe());
    next();
  });
}
