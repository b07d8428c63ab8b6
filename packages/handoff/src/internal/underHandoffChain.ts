import { Observable, queueScheduler, Subscription } from 'rxjs';
import { runWithHandoffChain } from '../currentHandoffChain';

/**
 * Subscribes to `source` under `chain`, so work the subscription starts (an agent's `chat`, and with
 * `AsyncLocalStorage` everything after its `await`s) sees the chain. Values, errors and completion are
 * delivered under `outer`, the caller's chain, so nothing downstream inherits `chain`.
 *
 * Stack-safe: for a handoff made within another (`outer` not empty), the subscription and every delivery
 * go through RxJS's `queueScheduler`, a trampoline. Outside a queue action they run at once, as a plain
 * call would; a handoff started synchronously from within another handoff's target (a re-entrant
 * handoff) is queued behind the current action instead of nesting on the stack, so a synchronous recursion 10,000 handoffs deep runs in constant stack, where nested
 * subscriptions would overflow it (and RxJS would swallow the overflow). Each action sets its chain
 * explicitly, as a queued action runs in the async context of whoever drains the queue.
 */
export function underHandoffChain<T>(chain: readonly string[], outer: readonly string[], source: Observable<T>): Observable<T> {
  return new Observable<T>((subscriber) => {
    // A top-level handoff cannot be nested in another: it calls directly, and becomes no one's queue.
    const nested = outer.length > 0;
    const subscription = new Subscription();
    const deliver = (delivery: () => void): void => {
      if (nested) queueScheduler.schedule(() => runWithHandoffChain(outer, delivery));
      else runWithHandoffChain(outer, delivery);
    };
    const start = (): void => {
      subscription.add(
        runWithHandoffChain(chain, () =>
          source.subscribe({
            next: (value) => deliver(() => subscriber.next(value)),
            error: (error: unknown) => deliver(() => subscriber.error(error)),
            complete: () => deliver(() => subscriber.complete()),
          }),
        ),
      );
    };
    if (nested) subscription.add(queueScheduler.schedule(start));
    else start();
    return subscription;
  });
}
