import type { SchedulerLike, Subscription } from 'rxjs';
import type { BackpressureStrategy } from '../BackpressureStrategy';
import type { ChannelCounters } from '../ChannelMetrics';
import type { ChannelClosedError } from '../errors/ChannelClosedError';
import type { ChannelListeners } from './ChannelListeners';
import type { ParkedQueue } from './ParkedQueue';
import { ringFull, type RingBuffer } from './RingBuffer';
import type { LaneHost, SubscriberLane } from './SubscriberLane';

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
 * A plain record made by {@link createDispatcher} and driven by free functions (`createDispatcher`, `closeDispatcher`, `requestDrain` and their modules), for
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

/** Whether a new item would have to park (the buffer is full or offers are already parked). @internal */
export function wouldPark<T>(dispatcher: ChannelDispatcher<T>): boolean {
  return ringFull(dispatcher.buffer) || dispatcher.parked.size > 0;
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
