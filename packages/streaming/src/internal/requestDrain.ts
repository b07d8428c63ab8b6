import type { ChannelClosedError } from '../errors/ChannelClosedError';
import { type ChannelDispatcher, ChannelState } from './ChannelDispatcher';
import { reportError, runCompleteHandlers, runEndHandlers, safely } from './ChannelListeners';
import { clearParked, type ParkedEntry, takeParked } from './ParkedQueue';
import { ringPush, ringShift } from './RingBuffer';
import { completeLane, deliver, type SubscriberLane } from './SubscriberLane';

/** Drains now, or, with a `dispatchScheduler`, schedules one drain unless one is pending. @internal */
export function requestDrain<T>(dispatcher: ChannelDispatcher<T>): void {
  const scheduler = dispatcher.dispatchScheduler;
  if (scheduler === undefined) drain(dispatcher);
  else if (dispatcher.scheduledDrain === undefined && dispatcher.state !== ChannelState.Closed) {
    let ran = false;
    const action = scheduler.schedule(() => {
      ran = true;
      dispatcher.scheduledDrain = undefined;
      drain(dispatcher);
    });
    // A scheduler may run the work at once (queueScheduler outside a queue); keep only a pending action.
    if (!ran) dispatcher.scheduledDrain = action;
  }
}

/** Nothing is queued or in flight and every lane is ready: an item can skip the buffer. */
export function idle<T>(dispatcher: ChannelDispatcher<T>): boolean {
  return (
    dispatcher.buffer.size === 0 &&
    !dispatcher.draining &&
    dispatcher.blocking === 0 &&
    dispatcher.lanes.length > 0 &&
    dispatcher.dispatchScheduler === undefined &&
    dispatcher.parked.size === 0
  );
}

/**
 * The fast path of `emit`/`offer`: hands the item straight to the lanes, then drains what subscribers
 * emitted meanwhile (or finishes, if one of them called `complete()`).
 *
 * @remarks
 * Whatever a subscriber does that needs a drain (emit, `complete()`, `error()`, a new subscriber) asks
 * for one, and {@link drain} notes the request while this one runs; checking that note afterwards is one
 * field read per item instead of re-reading the buffer and the state after the subscriber's call.
 */
export function dispatchNow<T>(dispatcher: ChannelDispatcher<T>, item: T): void {
  dispatcher.draining = true;
  dispatch(dispatcher, item);
  dispatcher.draining = false;
  if (dispatcher.drainRequested) drain(dispatcher);
}

function drain<T>(dispatcher: ChannelDispatcher<T>): void {
  if (dispatcher.draining) {
    dispatcher.drainRequested = true;
    return;
  }
  dispatcher.drainRequested = false;
  dispatcher.draining = true;
  const buffer = dispatcher.buffer;
  const parked = dispatcher.parked;
  while (buffer.size > 0 && dispatcher.blocking === 0 && dispatcher.lanes.length > 0) {
    const item = ringShift(buffer);
    if (parked.size > 0) {
      const entry = takeParked(parked) as ParkedEntry<T>;
      ringPush(buffer, entry.item);
      settleParked(dispatcher, entry, true);
    }
    dispatch(dispatcher, item);
  }
  dispatcher.draining = false;
  if (dispatcher.state === ChannelState.Completing && buffer.size === 0 && parked.size === 0 && dispatcher.blocking === 0) finish(dispatcher);
}

function dispatch<T>(dispatcher: ChannelDispatcher<T>, item: T): void {
  const lanes = dispatcher.lanes;
  for (let i = 0; i < lanes.length; i++) {
    // A lane catches what its subscriber's code throws; this is the last line of defence, so that
    // nothing can leave the drain loop half-way (its flag set, an item counted nowhere).
    try {
      deliver(lanes[i] as SubscriberLane<T>, item);
    } catch (error) {
      reportError(dispatcher.listeners, error, item);
    }
  }
  dispatcher.delivered += 1;
}

/** Tells a parked offer its fate; its callback (an `offer$` subscriber) must not break the dispatcher. */
export function settleParked<T>(dispatcher: ChannelDispatcher<T>, entry: ParkedEntry<T>, accepted: boolean): void {
  const callback = entry.settle;
  if (callback === undefined) return;
  try {
    callback(accepted);
  } catch (error) {
    reportError(dispatcher.listeners, error, entry.item);
  }
}

/** Tells a parked offer that `error()` refused it, as {@link settleParked} does. */
export function refuseParked<T>(dispatcher: ChannelDispatcher<T>, entry: ParkedEntry<T>, refused: ChannelClosedError): void {
  const callback = entry.refuse;
  if (callback === undefined) return;
  try {
    callback(refused);
  } catch (error) {
    reportError(dispatcher.listeners, error, entry.item);
  }
}

function finish<T>(dispatcher: ChannelDispatcher<T>): void {
  dispatcher.state = ChannelState.Completed;
  clearParked(dispatcher.parked);
  const failure = dispatcher.failure;
  if (failure === undefined) runCompleteHandlers(dispatcher.listeners);
  const lanes = dispatcher.lanes;
  dispatcher.lanes = [];
  for (const lane of lanes) safely(dispatcher.listeners, () => completeLane(lane, failure));
  runEndHandlers(dispatcher.listeners);
}
