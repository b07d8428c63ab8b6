import { Observable } from 'rxjs';
import { runWithHandoffChain } from '../currentHandoffChain';

/**
 * Subscribes to `source` under `chain`, so work the subscription starts (an agent's `chat`, and with
 * `AsyncLocalStorage` everything after its `await`s) sees the chain.
 */
export function underHandoffChain<T>(chain: readonly string[], source: Observable<T>): Observable<T> {
  return new Observable<T>((subscriber) => runWithHandoffChain(chain, () => source.subscribe(subscriber)));
}
