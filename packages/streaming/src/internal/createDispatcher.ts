import { Subscription } from 'rxjs';
import type { BackpressureStrategy } from '../BackpressureStrategy';
import type { ChannelHandler, ChannelObserver } from '../ChannelSubscriber';
import { BufferOverflowError } from '../errors/BufferOverflowError';
import { type ChannelDispatcher, ChannelState, type DispatcherSettings } from './ChannelDispatcher';
import { createListeners, reportError, safely } from './ChannelListeners';
import { assertOpen, removeLane } from './closeDispatcher';
import { cancelParked, createParkedQueue, type ParkedEntry, parkItem } from './ParkedQueue';
import { Overflow, overflow } from './overflow';
import { createRingBuffer, ringFull, ringPush } from './RingBuffer';
import { createLane } from './SubscriberLane';
import { dispatchNow, idle, requestDrain, settleParked } from './requestDrain';

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

function expired<T>(dispatcher: ChannelDispatcher<T>, entry: ParkedEntry<T>): void {
  dispatcher.dropped += 1;
  settleParked(dispatcher, entry, false);
  if (dispatcher.state === ChannelState.Completing) requestDrain(dispatcher);
}
