import { reportUnhandledError } from '@rxagents/core';
import { type SchedulerLike, Subscription } from 'rxjs';
import { BackpressureStrategy } from '../BackpressureStrategy';
import { type ChannelCounters } from '../ChannelMetrics';
import type { ChannelObserver } from '../ChannelSubscriber';
import { BufferOverflowError } from '../errors/BufferOverflowError';
import { ChannelClosedError } from '../errors/ChannelClosedError';
import { type ParkedEntry, ParkedQueue } from './ParkedQueue';
import { Overflow, overflow } from './overflow';
import { RingBuffer } from './RingBuffer';
import { type LaneHost, SubscriberLane } from './SubscriberLane';

/** Where a channel is in its life. @internal */
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
 * @internal
 */
export class ChannelDispatcher<T> implements LaneHost<T> {
  state: ChannelState = ChannelState.Open;
  emitted = 0;
  delivered = 0;
  dropped = 0;
  subscriberDropped = 0;
  readonly #settings: DispatcherSettings;
  readonly #buffer: RingBuffer<T>;
  readonly #strategy: BackpressureStrategy;
  readonly #parked: ParkedQueue<T>;
  readonly #dispatchScheduler: SchedulerLike | undefined;
  #lanes: SubscriberLane<T>[] = [];
  #errorHandlers: ((error: unknown, item: T | undefined) => void)[] = [];
  #completeHandlers: (() => void)[] = [];
  #endHandlers: (() => void)[] = [];
  #draining = false;
  #blocking = 0;
  #scheduledDrain: Subscription | undefined;

  constructor(settings: DispatcherSettings) {
    this.#settings = settings;
    this.#buffer = new RingBuffer<T>(settings.bufferSize);
    this.#strategy = settings.backpressure;
    this.#dispatchScheduler = settings.dispatchScheduler;
    this.#parked = new ParkedQueue<T>(settings.offerTimeout, settings.scheduler, (entry) => this.#expired(entry));
  }

  get id(): string {
    return this.#settings.id;
  }

  blockingChanged(blocking: boolean): void {
    this.#blocking += blocking ? 1 : -1;
    if (!blocking) this.#requestDrain();
  }

  laneDropped(): void {
    this.subscriberDropped += 1;
  }

  laneFailed(lane: SubscriberLane<T>): void {
    this.#removeLane(lane);
  }

  /** Whether a new item would have to park (the buffer is full or offers are already parked). */
  get wouldPark(): boolean {
    return this.#buffer.full || this.#parked.size > 0;
  }

  assertOpen(): void {
    if (this.state !== ChannelState.Open) throw new ChannelClosedError(this.#settings.id, this.state === ChannelState.Closed ? 'closed' : 'completed');
  }

  emit(item: T): boolean {
    if (this.state !== ChannelState.Open) this.assertOpen();
    this.emitted += 1;
    if (this.#idle()) {
      this.#dispatchNow(item);
      return true;
    }
    return this.#enqueue(item, undefined) !== false;
  }

  offer(item: T, settle: ((accepted: boolean) => void) | undefined): boolean | ParkedEntry<T> {
    this.assertOpen();
    this.emitted += 1;
    if (this.#idle()) {
      this.#dispatchNow(item);
      return true;
    }
    return this.#enqueue(item, settle);
  }

  cancelOffer(entry: ParkedEntry<T>): void {
    if (!this.#parked.cancel(entry)) return;
    this.dropped += 1;
    // The withdrawn offer may have been all that kept a `complete()` from finishing.
    if (this.state === ChannelState.Completing) this.#requestDrain();
  }

  /**
   * Adds a lane and drains to it. `register` receives the lane's Subscription before the first item is
   * handed over, so a consumer that unsubscribes during that first drain (`take(1)` on buffered items)
   * stops the lane at once instead of consuming the rest of the buffer.
   */
  subscribe(
    observer: Partial<ChannelObserver<T>>,
    bufferSize: number | undefined,
    strategy: BackpressureStrategy,
    register?: (subscription: Subscription) => void,
  ): Subscription {
    if (this.state === ChannelState.Completed || this.state === ChannelState.Closed) {
      observer.complete?.();
      return Subscription.EMPTY;
    }
    const lane = new SubscriberLane<T>(this, observer, bufferSize, strategy);
    this.#lanes = [...this.#lanes, lane];
    const subscription = new Subscription(() => this.#removeLane(lane));
    register?.(subscription);
    this.#requestDrain();
    return subscription;
  }

  onError(handler: (error: unknown, item: T | undefined) => void): Subscription {
    this.#errorHandlers = [...this.#errorHandlers, handler];
    return new Subscription(() => (this.#errorHandlers = this.#errorHandlers.filter((h) => h !== handler)));
  }

  onComplete(handler: () => void): Subscription {
    if (this.state === ChannelState.Completed) {
      this.#safely(handler);
      return Subscription.EMPTY;
    }
    this.#completeHandlers = [...this.#completeHandlers, handler];
    return new Subscription(() => (this.#completeHandlers = this.#completeHandlers.filter((h) => h !== handler)));
  }

  /** Runs `handler` once the channel has ended (completed or closed); returns what removes it. */
  onEnd(handler: () => void): () => void {
    this.#endHandlers.push(handler);
    return () => {
      const index = this.#endHandlers.indexOf(handler);
      if (index >= 0) this.#endHandlers.splice(index, 1);
    };
  }

  complete(): void {
    if (this.state !== ChannelState.Open) return;
    this.state = ChannelState.Completing;
    this.#requestDrain();
  }

  close(): void {
    if (this.state === ChannelState.Closed || this.state === ChannelState.Completed) return;
    this.state = ChannelState.Closed;
    this.#scheduledDrain?.unsubscribe();
    this.dropped += this.#buffer.size;
    this.#buffer.clear();
    for (const entry of this.#parked.clear()) {
      this.dropped += 1;
      this.#settle(entry, false);
    }
    const lanes = this.#lanes;
    this.#lanes = [];
    this.#blocking = 0;
    for (const lane of lanes) this.#safely(() => lane.close());
    this.#runEndHandlers();
  }

  counters(): Omit<ChannelCounters, 'channelId' | 'completed' | 'closed'> {
    return {
      emitted: this.emitted,
      delivered: this.delivered,
      dropped: this.dropped,
      bufferUsed: this.#buffer.size,
      bufferCapacity: this.#buffer.capacity,
      pendingOffers: this.#parked.size,
      subscriberCount: this.#lanes.length,
      subscriberDropped: this.subscriberDropped,
    };
  }

  reportError(error: unknown, item: T | undefined): void {
    const handlers = this.#errorHandlers;
    if (handlers.length === 0) {
      reportUnhandledError(error);
      return;
    }
    for (const handler of handlers) {
      try {
        handler(error, item);
      } catch (handlerError) {
        reportUnhandledError(handlerError);
      }
    }
  }

  #enqueue(item: T, settle: ((accepted: boolean) => void) | undefined): boolean | ParkedEntry<T> {
    const buffer = this.#buffer;
    if (!buffer.full && this.#parked.size === 0) {
      buffer.push(item);
      this.#requestDrain();
      return true;
    }
    const outcome = overflow(this.#strategy, buffer, item);
    if (outcome === Overflow.Block) {
      if (this.#parked.size < this.#settings.maxPendingOffers) return this.#parked.park(item, settle);
      this.dropped += 1;
      if (this.#settings.strictPendingOffers) throw new BufferOverflowError(this.#settings.id, this.#settings.maxPendingOffers, 'the parked-offer queue');
      return false;
    }
    this.dropped += 1;
    if (outcome === Overflow.Failed) throw new BufferOverflowError(this.#settings.id, buffer.capacity);
    return outcome === Overflow.Replaced;
  }

  /** Nothing is queued or in flight and every lane is ready: an item can skip the buffer. */
  #idle(): boolean {
    return this.#buffer.size === 0 && !this.#draining && this.#blocking === 0 && this.#lanes.length > 0 && this.#dispatchScheduler === undefined && this.#parked.size === 0;
  }

  /** The fast path of `emit`/`offer`: hands the item straight to the lanes, then drains what subscribers emitted meanwhile (or finishes, if one of them called `complete()`). */
  #dispatchNow(item: T): void {
    this.#draining = true;
    this.#dispatch(item);
    this.#draining = false;
    if (this.#buffer.size > 0 || this.state === ChannelState.Completing) this.#drain();
  }

  #requestDrain(): void {
    if (this.#dispatchScheduler === undefined) this.#drain();
    else if (this.#scheduledDrain === undefined && this.state !== ChannelState.Closed) {
      let ran = false;
      const action = this.#dispatchScheduler.schedule(() => {
        ran = true;
        this.#scheduledDrain = undefined;
        this.#drain();
      });
      // A scheduler may run the work at once (queueScheduler outside a queue); keep only a pending action.
      if (!ran) this.#scheduledDrain = action;
    }
  }

  #drain(): void {
    if (this.#draining) return;
    this.#draining = true;
    const buffer = this.#buffer;
    const parked = this.#parked;
    while (buffer.size > 0 && this.#blocking === 0 && this.#lanes.length > 0) {
      const item = buffer.shift();
      if (parked.size > 0) {
        const entry = parked.take() as ParkedEntry<T>;
        buffer.push(entry.item);
        this.#settle(entry, true);
      }
      this.#dispatch(item);
    }
    this.#draining = false;
    if (this.state === ChannelState.Completing && buffer.size === 0 && parked.size === 0 && this.#blocking === 0) this.#finish();
  }

  #dispatch(item: T): void {
    const lanes = this.#lanes;
    for (let i = 0; i < lanes.length; i++) {
      // A lane catches what its subscriber's code throws; this is the last line of defence, so that
      // nothing can leave the drain loop half-way (its flag set, an item counted nowhere).
      try {
        (lanes[i] as SubscriberLane<T>).deliver(item);
      } catch (error) {
        this.reportError(error, item);
      }
    }
    this.delivered += 1;
  }

  /** Tells a parked offer its fate; its callback (an `offer$` subscriber) must not break the dispatcher. */
  #settle(entry: ParkedEntry<T>, accepted: boolean): void {
    const settle = entry.settle;
    if (settle === undefined) return;
    try {
      settle(accepted);
    } catch (error) {
      this.reportError(error, entry.item);
    }
  }

  #finish(): void {
    this.state = ChannelState.Completed;
    this.#parked.clear();
    const handlers = this.#completeHandlers;
    this.#completeHandlers = [];
    for (const handler of handlers) this.#safely(handler);
    const lanes = this.#lanes;
    this.#lanes = [];
    for (const lane of lanes) this.#safely(() => lane.complete());
    this.#runEndHandlers();
  }

  #expired(entry: ParkedEntry<T>): void {
    this.dropped += 1;
    this.#settle(entry, false);
    if (this.state === ChannelState.Completing) this.#requestDrain();
  }

  #removeLane(lane: SubscriberLane<T>): void {
    // A lane with its own buffer may still be draining after the channel finished (it is no longer listed).
    lane.dispose();
    if (!this.#lanes.includes(lane)) return;
    this.#lanes = this.#lanes.filter((other) => other !== lane);
    if (lane.blocking) {
      lane.blocking = false;
      this.#blocking -= 1;
    }
    this.#requestDrain();
  }

  #safely(handler: () => void): void {
    try {
      handler();
    } catch (error) {
      this.reportError(error, undefined);
    }
  }

  #runEndHandlers(): void {
    const handlers = this.#endHandlers;
    this.#endHandlers = [];
    for (const handler of handlers) this.#safely(handler);
  }
}
