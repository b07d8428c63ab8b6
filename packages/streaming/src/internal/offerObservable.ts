import { Observable } from 'rxjs';
import type { ChannelDispatcher } from './ChannelDispatcher';
import { cancelOffer, offerItem } from './createDispatcher';

/**
 * What `StreamingChannel.offer$` returns: offers on subscription (`validate`, the channel's schema check, runs
 * then, so a bad item errors the subscriber), emits `true`/`false` once and completes; unsubscribing while parked withdraws
 * the offer (counted as dropped); a parked offer refused by `error()` errors.
 *
 * @internal
 */
export function offerObservable<T>(dispatcher: ChannelDispatcher<T>, item: T, validate: ((item: T) => T) | undefined): Observable<boolean> {
  return new Observable<boolean>((subscriber) => {
    const settle = (accepted: boolean): void => {
      subscriber.next(accepted);
      subscriber.complete();
    };
    const result = offerItem(dispatcher, validate === undefined ? item : validate(item), settle);
    if (typeof result === 'boolean') {
      settle(result);
      return undefined;
    }
    result.refuse = (refused) => subscriber.error(refused);
    return () => cancelOffer(dispatcher, result);
  });
}
