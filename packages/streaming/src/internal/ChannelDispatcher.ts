import { type SchedulerLike, Subscription } from 'rxjs';
import { BackpressureStrategy } from '../BackpressureStrategy';
import { type ChannelCounters } from '../ChannelMetrics';
import type { ChannelHandler, ChannelObserver } from '../ChannelSubscriber';
import { BufferOverflowError } from '../errors/BufferOverflowError';
import { ChannelClosedError } from '../errors/ChannelClosedError';
import { addCompleteHandler, type ChannelListeners, createListeners, reportError, runCompleteHandlers, runEndHandlers, safely } from './ChannelListeners';
import { cancelParked, clearParked, createParkedQueue, type ParkedEntry, type ParkedQueue, parkItem, takeParked } from './ParkedQueue';
import { Overflow, overflow } from './overflow';
import { createRingBuffer, type RingBuffer, ringClear, ringFull, ringPush, ringShift } from './RingBuffer';
import { closeLane, completeLane, createLane, deliver, disposeLane, type LaneHost, type SubscriberLane } from './SubscriberLane';

/** What a channel does when its last subscriber leaves: see `StreamingChannelOptions.onLastUnsubscribe`. @internal */
export type LastUnsubscribe = 'keep' | 'close' | 'abort';

/** Where a channel is in its life; `error()` goes through `Completing` and `Completed` too, with `failure` set. @internal */
export const ChannelState = { Open: 0, Completing: 1, Completed: 2, Closed: 3 } as const;
/** One of the {@link ChannelState} values. @internal */
export type ChannelState = (typeof ChannelState)[keyof typeof ChannelState];

/** What the dispatcher needs to know. @internal */
export interface DispatcherSettings {
  readonly id: string;
  readonly bufferSize: number;
  readonly backpressure: BackpressureStrategy;
  readonly offerTimeout: number;
  readonly maxPendingOffers: number;
  readonly strictPendingOffers: boolean;
  readonly scheduler: SchedulerLike;
  readonly dispatchScheduler: SchedulerLike | undefined;
  readonly onLastUnsubscribe: LastUnsubscribe;
}

/**
 * The engine of a {@link StreamingChannel}: the bounded buffer, the parked offers, the subscriber lanes
 * and the trampolined drain loop, with the counters behind `metrics()`.
 *
 * @remarks
 * `emit` appends and drains synchronously until the buffer is empty or a lane blocks; re-entrant calls
 * only append (the running loop picks the item up), so nothing recurses. With a `dispatchScheduler`,
 * one scheduled action drains a whole batch.
 *
 * A plain record made by {@link createDispatcher} and driven by the free functions of this module, for
 * the reason given at {@link RingBuffer}: V8 keeps an object literal's shape, and the code optimised for
 * it, across channels, where a class's were collected with its last instance.
 *
 * @internal
 */
export interface ChannelDispatcher<T> extends LaneHost<T> {
  state: ChannelState;
  emitted: number;
  delivered: number;
  dropped: number;
  subscriberDropped: number;
  draining: boolean;
  /** A drain was asked for while one ran (an item emitted, or `complete()` called, from a subscriber): drain again when it ends. */
  drainRequested: boolean;
  /** How many lanes hold the dispatcher back. */
  blocking: number;
  lanes: SubscriberLane<T>[];
  scheduledDrain: Subscription | undefined;
  /** Set by `error()`: the channel drains its buffer, then fails every subscriber with it. */
  failure: { readonly error: unknown } | undefined;
  /** Created on first use of `channel.signal`. */
  abortController: AbortController | undefined;
  /** Why the producer was told to stop (the last subscriber left under `abort`), before anyone asked for the signal. */
  abortReason: ChannelClosedError | undefined;
  readonly buffer: RingBuffer<T>;
  readonly listeners: ChannelListeners<T>;
  readonly parked: ParkedQueue<T>;
  readonly strategy: BackpressureStrategy;
  readonly maxPendingOffers: number;
  readonly strictPendingOffers: boolean;
  readonly dispatchScheduler: SchedulerLike | undefined;
  readonly onLastUnsubscribe: LastUnsubscribe;
}

/** A dispatcher for a new channel. @internal */
export function createDispatcher<T>(settings: DispatcherSettings): ChannelDispatcher<T> {
  const dispatcher: ChannelDispatcher<T> = {
    id: settings.id,
    state: ChannelState.Open,
    emitted: 0,
    delivered: 0,
    dropped: 0,
    subscriberDropped: 0,
    draining: false,
    drainRequested: false,
    blocking: 0,
    lanes: [],
    scheduledDrain: undefined,
    failure: undefined,
    abortController: undefined,
    abortReason: undefined,
    buffer: createRingBuffer<T>(settings.bufferSize),
    listeners: createListeners<T>(),
    parked: createParkedQueue<T>(settings.offerTimeout, settings.scheduler, (entry) => expired(dispatcher, entry)),
    strategy: settings.backpressure,
    maxPendingOffers: settings.maxPendingOffers,
    strictPendingOffers: settings.strictPendingOffers,
    dispatchScheduler: settings.dispatchScheduler,
    onLastUnsubscribe: settings.onLastUnsubscribe,
    blockingChanged: (blocking) => blockingChanged(dispatcher, blocking),
    reportError: (error, item) => reportError(dispatcher.listeners, error, item),
    laneDropped: () => {
      dispatcher.subscriberDropped += 1;
    },
    laneFailed: (lane) => removeLane(dispatcher, lane),
  };
  return dispatcher;
}

/** Whether a new item would have to park (the buffer is full or offers are already parked). @internal */
export function wouldPark<T>(dispatcher: ChannelDispatcher<T>): boolean {
  return ringFull(dispatcher.buffer) || dispatcher.parked.size > 0;
}

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

/** `StreamingChannel.emit` without the schema check. @internal */
export function emitItem<T>(dispatcher: ChannelDispatcher<T>, item: T): boolean {
  if (dispatcher.state !== ChannelState.Open) assertOpen(dispatcher);
  dispatcher.emitted += 1;
  if (idle(dispatcher)) {
    dispatchNow(dispatcher, item);
    return true;
  }
  return enqueue(dispatcher, item, undefined) !== false;
}

/** Accepts (`true`), drops (`false`) or parks an item (the entry, whose `settle` learns its fate). @internal */
export function offerItem<T>(dispatcher: ChannelDispatcher<T>, item: T, settle: ((accepted: boolean) => void) | undefined): boolean | ParkedEntry<T> {
  assertOpen(dispatcher);
  dispatcher.emitted += 1;
  if (idle(dispatcher)) {
    dispatchNow(dispatcher, item);
    return true;
  }
  return enqueue(dispatcher, item, settle);
}

/** Withdraws a parked offer (counted as dropped). @internal */
export function cancelOffer<T>(dispatcher: ChannelDispatcher<T>, entry: ParkedEntry<T>): void {
  if (!cancelParked(dispatcher.parked, entry)) return;
  dispatcher.dropped += 1;
  // The withdrawn offer may have been all that kept a `complete()` from finishing.
  if (dispatcher.state === ChannelState.Completing) requestDrain(dispatcher);
}

/**
 * Adds a lane and drains to it. `register` receives the lane's Subscription before the first item is
 * handed over, so a consumer that unsubscribes during that first drain (`take(1)` on buffered items)
 * stops the lane at once instead of consuming the rest of the buffer.
 *
 * @internal
 */
export function subscribeLane<T>(
  dispatcher: ChannelDispatcher<T>,
  subscriber: ChannelHandler<T> | Partial<ChannelObserver<T>>,
  bufferSize: number | undefined,
  strategy: BackpressureStrategy,
  register?: (subscription: Subscription) => void,
  derivedReaders?: () => boolean,
): Subscription {
  if (dispatcher.state === ChannelState.Completed || dispatcher.state === ChannelState.Closed) {
    const failure = dispatcher.state === ChannelState.Completed ? dispatcher.failure : undefined;
    if (typeof subscriber !== 'function') {
      safely(dispatcher.listeners, () => (failure === undefined ? subscriber.complete?.() : subscriber.error?.(failure.error)));
    }
    return Subscription.EMPTY;
  }
  const lane = createLane<T>(dispatcher, subscriber, bufferSize, strategy, derivedReaders);
  dispatcher.lanes = [...dispatcher.lanes, lane];
  const subscription = new Subscription(() => removeLane(dispatcher, lane));
  register?.(subscription);
  requestDrain(dispatcher);
  return subscription;
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
      refuse(dispatcher, entry, refused);
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
    settle(dispatcher, entry, false);
  }
  const lanes = dispatcher.lanes;
  dispatcher.lanes = [];
  dispatcher.blocking = 0;
  for (const lane of lanes) safely(dispatcher.listeners, () => closeLane(lane));
  runEndHandlers(dispatcher.listeners);
}

/** The counters behind `metrics()`. @internal */
export function counters<T>(dispatcher: ChannelDispatcher<T>): Omit<ChannelCounters, 'channelId' | 'completed' | 'closed' | 'errored'> {
  return {
    emitted: dispatcher.emitted,
    delivered: dispatcher.delivered,
    dropped: dispatcher.dropped,
    bufferUsed: dispatcher.buffer.size,
    bufferCapacity: dispatcher.buffer.capacity,
    pendingOffers: dispatcher.parked.size,
    subscriberCount: dispatcher.lanes.length,
    subscriberDropped: dispatcher.subscriberDropped,
  };
}

function blockingChanged<T>(dispatcher: ChannelDispatcher<T>, blocking: boolean): void {
  dispatcher.blocking += blocking ? 1 : -1;
  if (!blocking) requestDrain(dispatcher);
}

function enqueue<T>(dispatcher: ChannelDispatcher<T>, item: T, settle: ((accepted: boolean) => void) | undefined): boolean | ParkedEntry<T> {
  const buffer = dispatcher.buffer;
  const parked = dispatcher.parked;
  if (!ringFull(buffer) && parked.size === 0) {
    ringPush(buffer, item);
    requestDrain(dispatcher);
    return true;
  }
  const outcome = overflow(dispatcher.strategy, buffer, item);
  if (outcome === Overflow.Block) {
    if (parked.size < dispatcher.maxPendingOffers) return parkItem(parked, item, settle);
    dispatcher.dropped += 1;
    if (dispatcher.strictPendingOffers) throw new BufferOverflowError(dispatcher.id, dispatcher.maxPendingOffers, 'the parked-offer queue');
    return false;
  }
  dispatcher.dropped += 1;
  if (outcome === Overflow.Failed) throw new BufferOverflowError(dispatcher.id, buffer.capacity);
  return outcome === Overflow.Replaced;
}

/** Nothing is queued or in flight and every lane is ready: an item can skip the buffer. */
function idle<T>(dispatcher: ChannelDispatcher<T>): boolean {
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
function dispatchNow<T>(dispatcher: ChannelDispatcher<T>, item: T): void {
  dispatcher.draining = true;
  dispatch(dispatcher, item);
  dispatcher.draining = false;
  if (dispatcher.drainRequested) drain(dispatcher);
}

function requestDrain<T>(dispatcher: ChannelDispatcher<T>): void {
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
      settle(dispatcher, entry, true);
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
function settle<T>(dispatcher: ChannelDispatcher<T>, entry: ParkedEntry<T>, accepted: boolean): void {
  const callback = entry.settle;
  if (callback === undefined) return;
  try {
    callback(accepted);
  } catch (error) {
    reportError(dispatcher.listeners, error, entry.item);
  }
}

/** Tells a parked offer that `error()` refused it, as {@link settle} does. */
function refuse<T>(dispatcher: ChannelDispatcher<T>, entry: ParkedEntry<T>, refused: ChannelClosedError): void {
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

function expired<T>(dispatcher: ChannelDispatcher<T>, entry: ParkedEntry<T>): void {
  dispatcher.dropped += 1;
  settle(dispatcher, entry, false);
  if (dispatcher.state === ChannelState.Completing) requestDrain(dispatcher);
}

function removeLane<T>(dispatcher: ChannelDispatcher<T>, lane: SubscriberLane<T>): void {
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

/**
 * Whether anyone reads the channel: a subscriber of its own, or a derived channel (`map`, `filter`) that
 * has one, at any depth. A derived channel nobody subscribed to does not keep its parent's producer going.
 *
 * @internal
 */
export function hasReaders<T>(dispatcher: ChannelDispatcher<T>): boolean {
  for (const lane of dispatcher.lanes) if (lane.derivedReaders === undefined || lane.derivedReaders()) return true;
  return false;
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
