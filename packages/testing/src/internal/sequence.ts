import { Observable, type Subscription } from 'rxjs';

/**
 * @internal `concat(...parts)` for many parts: each part is subscribed when the one before completes, at
 * O(1) a part (RxJS's `concat` takes its parts from the front of an array, which costs more the more are
 * left) and in a loop for parts that complete as they are subscribed, so a long row of them never recurses.
 */
export function sequence<T>(parts: readonly Observable<T>[]): Observable<T> {
  return new Observable<T>((subscriber) => {
    let index = 0;
    let current: Subscription | undefined;
    let subscribing = false;
    let completedAtOnce = false;
    const advance = (): void => {
      while (!subscriber.closed) {
        if (index === parts.length) {
          subscriber.complete();
          return;
        }
        const part = parts[index++] as Observable<T>;
        completedAtOnce = false;
        subscribing = true;
        current = part.subscribe({
          next: (value) => subscriber.next(value),
          error: (error: unknown) => subscriber.error(error),
          complete: () => {
            if (subscribing) completedAtOnce = true;
            else advance();
          },
        });
        subscribing = false;
        if (!completedAtOnce) return;
      }
    };
    advance();
    return () => current?.unsubscribe();
  });
}
