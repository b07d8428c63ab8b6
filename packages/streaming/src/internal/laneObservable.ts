import { Observable } from 'rxjs';
import type { ChannelDispatcher } from './ChannelDispatcher';
import { subscribeLane } from './createDispatcher';
import type { LaneOptions } from './laneOptions';

/**
 * A channel as an RxJS Observable (`asObservable()`, `from(channel)`): each subscription is one channel
 * subscriber, with its own buffer when `lane` gives one; unsubscribing removes it.
 *
 * @internal
 */
export function laneObservable<T>(dispatcher: ChannelDispatcher<T>, lane: LaneOptions): Observable<T> {
  return new Observable<T>((subscriber) => {
    subscribeLane(
      dispatcher,
      { next: (item) => subscriber.next(item), error: (error) => subscriber.error(error), complete: () => subscriber.complete() },
      lane.bufferSize,
      lane.strategy,
      (subscription) => subscriber.add(subscription),
    );
  });
}
