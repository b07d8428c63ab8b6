import { Subscription } from 'rxjs';
import { ChannelClosedError } from '../errors/ChannelClosedError';
import { type ChannelDispatcher, ChannelState, hasReaders } from './ChannelDispatcher';
import { addCompleteHandler, runEndHandlers, safely } from './ChannelListeners';
import { clearParked } from './ParkedQueue';
import { ringClear } from './RingBuffer';
import { closeLane, disposeLane, type SubscriberLane } from './SubscriberLane';
import { refuseParked, requestDrain, settleParked } from './requestDrain';

/** Throws {@link ChannelClosedError} unless the channel is open. @internal */
export function assertOpen<T>(dispatcher: ChannelDispatcher<T>): void {
  if (dispatcher.state !== ChannelState.Open) throw refusal(dispatcher);
}

/** The {@link ChannelClosedError} for an item the channel no longer accepts, naming the end state. */
function refusal<T>(dispatcher: ChannelDispatcher<T>): ChannelClosedError {
  if (dispatcher.state === ChannelState.Closed) return new ChannelClosedError(dispatcher.id, 'closed');
  const failure = dispatcher.failure;
  return failure === undefined ? new ChannelClosedError(dispatcher.id, 'completed') : new ChannelClosedError(dispatcher.id, 'errored', failure.error);
}

/** Registers a handler run once the channel has completed (at once if it has); unsubscribe to remove it. @internal */
export function onComplete<T>(dispatcher: ChannelDispatcher<T>, handler: () => void): Subscription {
  // After `error()` or `close()` no `onComplete` handler ever runs, so there is nothing to keep either.
  if (dispatcher.failure !== undefined || dispatcher.state === ChannelState.Closed) return Subscription.EMPTY;
  if (dispatcher.state !== ChannelState.Completed) return addCompleteHandler(dispatcher.listeners, handler);
  safely(dispatcher.listeners, handler);
  return Subscription.EMPTY;
}

/** Refuses new items; finishes once everything buffered and parked is delivered. @internal */
export function completeDispatcher<T>(dispatcher: ChannelDispatcher<T>): void {
  if (dispatcher.state !== ChannelState.Open) return;
  dispatcher.state = ChannelState.Completing;
  requestDrain(dispatcher);
}

/**
 * Refuses new items and rejects the parked offers with {@link ChannelClosedError}; fails every lane with
 * `error` once the buffer is delivered. Ignored unless the channel is open.
 *
 * @internal
 */
export function errorDispatcher<T>(dispatcher: ChannelDispatcher<T>, error: unknown): void {
  if (dispatcher.state !== ChannelState.Open) return;
  dispatcher.state = ChannelState.Completing;
  dispatcher.failure = { error };
  const entries = clearParked(dispatcher.parked);
  if (entries.length > 0) {
    const refused = refusal(dispatcher);
    for (const entry of entries) {
      dispatcher.dropped += 1;
      refuseParked(dispatcher, entry, refused);
    }
  }
  requestDrain(dispatcher);
}

/** The producer's signal: aborted when the last subscriber leaves a channel with `onLastUnsubscribe: 'abort'`. @internal */
export function producerSignal<T>(dispatcher: ChannelDispatcher<T>): AbortSignal {
  let controller = dispatcher.abortController;
  if (controller === undefined) {
    controller = dispatcher.abortController = new AbortController();
    if (dispatcher.abortReason !== undefined) controller.abort(dispatcher.abortReason);
  }
  return controller.signal;
}

/** Discards the buffer and the parked offers and completes every lane at once. @internal */
export function closeDispatcher<T>(dispatcher: ChannelDispatcher<T>): void {
  if (dispatcher.state === ChannelState.Closed || dispatcher.state === ChannelState.Completed) return;
  dispatcher.state = ChannelState.Closed;
  dispatcher.scheduledDrain?.unsubscribe();
  dispatcher.dropped += dispatcher.buffer.size;
  ringClear(dispatcher.buffer);
  for (const entry of clearParked(dispatcher.parked)) {
    dispatcher.dropped += 1;
    settleParked(dispatcher, entry, false);
  }
  const lanes = dispatcher.lanes;
  dispatcher.lanes = [];
  dispatcher.blocking = 0;
  for (const lane of lanes) safely(dispatcher.listeners, () => closeLane(lane));
  runEndHandlers(dispatcher.listeners);
}

/** Takes a lane off the channel (its subscriber left or failed); the last reader leaving may close the channel. @internal */
export function removeLane<T>(dispatcher: ChannelDispatcher<T>, lane: SubscriberLane<T>): void {
  // A lane with its own buffer may still be draining after the channel finished (it is no longer listed).
  disposeLane(lane);
  if (!dispatcher.lanes.includes(lane)) return;
  dispatcher.lanes = dispatcher.lanes.filter((other) => other !== lane);
  if (lane.blocking) {
    lane.blocking = false;
    dispatcher.blocking -= 1;
  }
  if (dispatcher.onLastUnsubscribe !== 'keep' && !hasReaders(dispatcher)) abandoned(dispatcher);
  else requestDrain(dispatcher);
}

/** The last subscriber left a channel that should not outlive its readers: close it, and under `abort` tell the producer. */
function abandoned<T>(dispatcher: ChannelDispatcher<T>): void {
  if (dispatcher.state === ChannelState.Closed || dispatcher.state === ChannelState.Completed) return;
  closeDispatcher(dispatcher);
  if (dispatcher.onLastUnsubscribe !== 'abort') return;
  const reason = new ChannelClosedError(dispatcher.id, 'closed');
  const controller = dispatcher.abortController;
  if (controller === undefined) dispatcher.abortReason = reason;
  else controller.abort(reason);
}
