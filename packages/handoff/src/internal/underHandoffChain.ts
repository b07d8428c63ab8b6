import { Observable } from 'rxjs';
import { currentHandoffChain, runWithHandoffChain } from '../currentHandoffChain';

/**
 * Subscribes to `source` under `chain`, so work the subscription starts (an agent's `chat`, and with
 * `AsyncLocalStorage` everything after its `await`s) sees the chain. Values, errors and completion are
 * delivered under the subscriber's own chain, so nothing downstream inherits `chain`.
 */
export function underHandoffChain<T>(chain: readonly string[], source: Observable<T>): Observable<T> {
  return new Observable<T>((subscriber) => {
    const outer = currentHandoffChain();
    return runWithHandoffChain(chain, () =>
      source.subscribe({
        next: (value) => runWithHandoffChain(outer, () => subscriber.next(value)),
        error: (error: unknown) => runWithHandoffChain(outer, () => subscriber.error(error)),
        complete: () => runWithHandoffChain(outer, () => subscriber.complete()),
      }),
    );
  });
}
