import { Observable, repeat, type SchedulerLike } from 'rxjs';
import { delayTimer } from '@rxagents/core';
import type { ChannelMetrics } from '../ChannelMetrics';

/**
 * The `metrics$` of a channel: the snapshot at once, then at most one per `sampleTime` while counters
 * change, completing once the channel has ended. One timer per subscriber, never one action per item.
 * With a `sampleTime` of `Infinity` there is no timer: the snapshot at once, and the last one when the
 * channel ends (`onEnd`), then it completes.
 *
 * @internal
 */
export function metricsStream(
  snapshot: () => ChannelMetrics,
  ended: () => boolean,
  onEnd: (handler: () => void) => () => void,
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
    const sample = (): void => {
      const current = snapshot();
      if (!sameCounters(last, current)) subscriber.next((last = current));
      if (ended()) subscriber.complete();
    };
    if (sampleTime === Infinity) return onEnd(sample);
    return delayTimer(sampleTime, scheduler).pipe(repeat()).subscribe(sample);
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
    a.closed === b.closed &&
    a.errored === b.errored
  );
}
