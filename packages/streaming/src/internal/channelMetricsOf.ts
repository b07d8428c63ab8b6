import { type ChannelMetrics, createChannelMetrics } from '../ChannelMetrics';
import { type ChannelDispatcher, ChannelState, counters } from './ChannelDispatcher';

/**
 * A snapshot of a channel's counters and end state: completed (by `complete()`, still draining or
 * drained), closed, or errored (by `error()`, unless a `close()` came after).
 *
 * @internal
 */
export function channelMetricsOf<T>(channelId: string, dispatcher: ChannelDispatcher<T>): ChannelMetrics {
  const state = dispatcher.state;
  return createChannelMetrics({
    channelId,
    ...counters(dispatcher),
    completed: (state === ChannelState.Completing || state === ChannelState.Completed) && dispatcher.failure === undefined,
    closed: state === ChannelState.Closed,
    errored: state !== ChannelState.Closed && dispatcher.failure !== undefined,
  });
}

/** Whether the channel has ended for good (completed or closed): `metrics$` completes then. @internal */
export function hasEnded<T>(dispatcher: ChannelDispatcher<T>): boolean {
  return dispatcher.state === ChannelState.Completed || dispatcher.state === ChannelState.Closed;
}
