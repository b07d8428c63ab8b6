import { interval, Observable, type SchedulerLike } from 'rxjs';
import type { ChannelMetrics } from '../ChannelMetrics';

/**
 * The `metrics$` of a channel: the snapshot at once, then at most one per `sampleTime` while counters
 * change, completing once the channel has ended. One timer per subscriber, never one action per item.
 *
 * @internal
 */
export function metricsStream(
  snapshot: () => ChannelMetrics,
  ended: () => boolean,
  sampleTime: number,
  scheduler: SchedulerLike,
): Observable<ChannelMetrics> {
  return new Observable<ChannelMetrics>((subscriber) => {
    let last = snapshot();
    subscriber.next(last);
    if (ended()) {
      subscriber.complete();
      return undefined;
    }
    return interval(sampleTime, scheduler).subscribe(() => {
      const current = snapshot();
      if (!sameCounters(last, current)) subscriber.next((last = current));
      if (ended()) subscriber.complete();
    });
  });
}

function sameCounters(a: ChannelMetrics, b: ChannelMetrics): boolean {
  return (
    a.emitted === b.emitted &&
    a.delivered === b.delivered &&
    a.dropped === b.dropped &&
    a.bufferUsed === b.bufferUsed &&
    a.pendingOffers === b.pendingOffers &&
    a.subscriberCount === b.subscriberCount &&
    a.subscriberDropped === b.subscriberDropped &&
    a.completed === b.completed &&
    a.closed === b.closed
  );
}
