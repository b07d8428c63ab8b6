import type { Subscription } from 'rxjs';
import { BackpressureStrategy } from '../BackpressureStrategy';
import type { ChannelHandler, ChannelObserver } from '../ChannelSubscriber';
import { BufferOverflowError } from '../errors/BufferOverflowError';
import { Ack } from './Ack';
import { Overflow, overflow } from './overflow';
import { createRingBuffer, type RingBuffer, ringClear, ringFull, ringPush, ringShift } from './RingBuffer';

const nativeThen = Promise.prototype.then;

const ignore = (): undefined => undefined;

/** What a {@link SubscriberLane} needs from its channel. @internal */
export interface LaneHost<T> {
  readonly id: string;
  /** The lane started or stopped holding the dispatcher back. */
  readonly blockingChanged: (blocking: boolean) => void;
  /** A handler threw or rejected. */
  readonly reportError: (error: unknown, item: T | undefined) => void;
  /** The lane's own buffer dropped an item. */
  readonly laneDropped: () => void;
  /** The lane failed (its `ERROR` buffer overflowed) and must be removed. */
  readonly laneFailed: (lane: SubscriberLane<T>) => void;
}

/**
 * One subscriber of a channel: calls its handler, waits for a returned Promise/Observable, and, when
 * it has its own buffer, queues items there under its own strategy.
 *
 * @remarks
 * A lane without its own buffer "blocks" (holds the dispatcher back) while its handler is pending; a
 * lane with a `BLOCK` buffer blocks only while that buffer is full. Draining is trampolined, so a
 * handler that settles synchronously never grows the stack.
 *
 * A plain record made by {@link createLane} and driven by free functions, for the reason given at
 * {@link RingBuffer}; the dispatcher reads `blocking` (and resets it when it removes the lane); the other fields belong to this module.
 *
 * @internal
 */
export interface SubscriberLane<T> {
  blocking: boolean;
  pending: boolean;
  closed: boolean;
  completing: boolean;
  /** The channel's `error()`, for the subscriber once its own buffer is delivered. */
  failure: { readonly error: unknown } | undefined;
  draining: boolean;
  inner: Subscription | undefined;
  item: T | undefined;
  readonly host: LaneHost<T>;
  readonly observer: Partial<ChannelObserver<T>>;
  /**
   * Called without a receiver: a handler function as given, an observer's `next` bound to it. A handler
   * is not wrapped, so every lane of the same handler calls the same function, which V8 inlines.
   */
  readonly next: (item: T) => unknown;
  readonly buffer: RingBuffer<T> | undefined;
  readonly strategy: BackpressureStrategy;
  readonly onFulfilled: () => void;
  readonly onRejected: (error: unknown) => void;
  /**
   * Set on the lane that feeds a derived channel (`map`, `filter`): whether that channel, or one derived
   * from it, has a subscriber of its own. Such a lane counts as a reader only while it does.
   */
  readonly derivedReaders: (() => boolean) | undefined;
}

/** A lane for `subscriber`, with its own buffer of `bufferSize` under `strategy` when `bufferSize` is given. @internal */
export function createLane<T>(
  host: LaneHost<T>,
  subscriber: ChannelHandler<T> | Partial<ChannelObserver<T>>,
  bufferSize: number | undefined,
  strategy: BackpressureStrategy,
  derivedReaders?: () => boolean,
): SubscriberLane<T> {
  const observer: Partial<ChannelObserver<T>> = typeof subscriber === 'function' ? {} : subscriber;
  const lane: SubscriberLane<T> = {
    blocking: false,
    pending: false,
    closed: false,
    completing: false,
    failure: undefined,
    draining: false,
    inner: undefined,
    item: undefined,
    host,
    observer,
    next: typeof subscriber === 'function' ? subscriber : typeof observer.next === 'function' ? observer.next.bind(observer) : ignore,
    buffer: bufferSize === undefined ? undefined : createRingBuffer<T>(bufferSize),
    strategy,
    onFulfilled: () => settled(lane),
    onRejected: (error) => {
      if (!lane.closed) lane.host.reportError(error, lane.item);
      settled(lane);
    },
    derivedReaders,
  };
  return lane;
}

/** Items waiting in the lane's own buffer. @internal */
export function laneBuffered<T>(lane: SubscriberLane<T>): number {
  return lane.buffer === undefined ? 0 : lane.buffer.size;
}

/** Hands one item to the subscriber; the dispatcher only calls it while the lane is not blocking. @internal */
export function deliver<T>(lane: SubscriberLane<T>, item: T): void {
  // Another subscriber may unsubscribe this one, or close the channel, while the same item is being handed out.
  if (lane.closed) return;
  // While the lane drains its own buffer (a handler may emit back into the channel meanwhile), a new
  // item queues behind the buffered ones: order per subscriber is channel order.
  if (!lane.pending && !lane.draining) run(lane, item);
  else queue(lane, item);
}

/**
 * Queues an item in the lane's own buffer, under its strategy when the buffer is full.
 *
 * Kept out of {@link deliver} (as {@link waitFor} is kept out of {@link run}) so that the per-item path of
 * a synchronous subscriber stays small enough for V8 to inline whole into the caller's code.
 */
function queue<T>(lane: SubscriberLane<T>, item: T): void {
  const buffer = lane.buffer as RingBuffer<T>;
  if (!ringFull(buffer)) {
    ringPush(buffer, item);
    if (ringFull(buffer) && lane.strategy === BackpressureStrategy.BLOCK) setBlocking(lane, true);
    return;
  }
  // DROP_OLDEST made room; DROP_NEWEST (and BLOCK, should a full lane still be handed an item) drops it.
  const outcome = overflow(lane.strategy, buffer, item);
  lane.host.laneDropped();
  if (outcome === Overflow.Failed) fail(lane, new BufferOverflowError(lane.host.id, buffer.capacity, 'a subscriber buffer'));
}

/** The channel finished: complete the subscriber (or fail it with the channel's `failure`) once its own buffer is delivered. @internal */
export function completeLane<T>(lane: SubscriberLane<T>, failure?: { readonly error: unknown }): void {
  lane.completing = true;
  lane.failure = failure;
  if (!lane.pending && !lane.draining) finish(lane);
}

/** The channel closed: discard the own buffer, cancel a pending handler, complete the subscriber. @internal */
export function closeLane<T>(lane: SubscriberLane<T>): void {
  if (lane.closed) return;
  const discarded = laneBuffered(lane);
  disposeLane(lane);
  for (let i = 0; i < discarded; i++) lane.host.laneDropped();
  callComplete(lane);
}

/** Unsubscribed: stop everything silently. @internal */
export function disposeLane<T>(lane: SubscriberLane<T>): void {
  lane.closed = true;
  const inner = lane.inner;
  lane.inner = undefined;
  if (lane.buffer !== undefined) ringClear(lane.buffer);
  try {
    inner?.unsubscribe();
  } catch (error) {
    // A teardown of the handler's Observable threw (RxJS's UnsubscriptionError).
    lane.host.reportError(error, undefined);
  }
}

function run<T>(lane: SubscriberLane<T>, item: T): void {
  let result: unknown;
  try {
    const next = lane.next;
    result = next(item);
  } catch (error) {
    lane.host.reportError(error, item);
    return;
  }
  if (typeof result === 'object' && result !== null) waitFor(lane, result, item);
}

/** What a handler returned for `item` is an object: wait for it if it is a thenable or an Observable. */
function waitFor<T>(lane: SubscriberLane<T>, result: object, item: T): void {
  // Unsubscribed by its own handler: nothing to wait for. A thenable still gets handlers, so a
  // rejection is not reported as unhandled; an Observable is not subscribed (that would start work).
  if (lane.closed) {
    if (!(result instanceof Ack)) ignoreThenable(result);
    return;
  }
  if (result instanceof Ack) {
    startPending(lane);
    result.whenReleased(lane.onFulfilled);
    return;
  }
  // Reading `then`/`subscribe` runs the user's code (a getter); what it throws is that item's failure.
  let kind: 'promise' | 'observable' | undefined;
  try {
    if (typeof (result as PromiseLike<unknown>).then === 'function') kind = 'promise';
    else if (typeof (result as { subscribe?: unknown }).subscribe === 'function') kind = 'observable';
  } catch (error) {
    lane.host.reportError(error, item);
    return;
  }
  if (kind === 'promise') awaitPromise(lane, result as PromiseLike<unknown>, item);
  else if (kind === 'observable') awaitObservable(lane, result as { subscribe: (o: object) => Subscription }, item);
}

function awaitPromise<T>(lane: SubscriberLane<T>, promise: PromiseLike<unknown>, item: T): void {
  lane.item = item;
  startPending(lane);
  if (promise instanceof Promise && promise.then === nativeThen) {
    promise.then(lane.onFulfilled, lane.onRejected);
    return;
  }
  // A hand-made thenable may call back twice, or both callbacks, or throw: only the first outcome counts.
  let called = false;
  try {
    promise.then(
      () => {
        if (called) return;
        called = true;
        lane.onFulfilled();
      },
      (error: unknown) => {
        if (called) return;
        called = true;
        lane.onRejected(error);
      },
    );
  } catch (error) {
    if (called) {
      if (!lane.closed) lane.host.reportError(error, item);
    } else {
      called = true;
      lane.onRejected(error);
    }
  }
}

function awaitObservable<T>(lane: SubscriberLane<T>, source: { subscribe: (o: object) => Subscription }, item: T): void {
  startPending(lane);
  let finished = false;
  const failed = (error: unknown): void => {
    if (finished) return;
    finished = true;
    lane.inner = undefined;
    if (!lane.closed) lane.host.reportError(error, item);
    settled(lane);
  };
  let inner: Subscription;
  try {
    inner = source.subscribe({
      error: failed,
      complete: () => {
        if (finished) return;
        finished = true;
        lane.inner = undefined;
        settled(lane);
      },
    });
  } catch (error) {
    if (finished) {
      if (!lane.closed) lane.host.reportError(error, item);
    } else failed(error);
    return;
  }
  if (finished) return;
  lane.inner = inner;
  // Unsubscribed (or closed) while subscribing to the handler's Observable: cancel it now.
  if (lane.closed) disposeLane(lane);
}

function startPending<T>(lane: SubscriberLane<T>): void {
  lane.pending = true;
  const buffer = lane.buffer;
  if (buffer === undefined || (lane.strategy === BackpressureStrategy.BLOCK && ringFull(buffer))) setBlocking(lane, true);
}

function settled<T>(lane: SubscriberLane<T>): void {
  if (lane.closed) return;
  lane.pending = false;
  lane.item = undefined;
  if (lane.draining) return;
  lane.draining = true;
  const buffer = lane.buffer;
  while (!lane.pending && !lane.closed && buffer !== undefined && buffer.size > 0) run(lane, ringShift(buffer));
  lane.draining = false;
  if (lane.closed) return;
  if (lane.blocking && !(lane.pending && (buffer === undefined || ringFull(buffer)))) setBlocking(lane, false);
  if (lane.completing && !lane.pending) finish(lane);
}

function setBlocking<T>(lane: SubscriberLane<T>, blocking: boolean): void {
  if (lane.blocking === blocking) return;
  lane.blocking = blocking;
  lane.host.blockingChanged(blocking);
}

function fail<T>(lane: SubscriberLane<T>, error: unknown): void {
  // The items still waiting in its buffer never reach the subscriber: lost, as when the channel closes.
  const discarded = laneBuffered(lane);
  disposeLane(lane);
  for (let i = 0; i < discarded; i++) lane.host.laneDropped();
  lane.host.laneFailed(lane);
  const onError = lane.observer.error;
  if (onError === undefined) {
    lane.host.reportError(error, undefined);
    return;
  }
  try {
    onError.call(lane.observer, error);
  } catch (callbackError) {
    lane.host.reportError(callbackError, undefined);
  }
}

function finish<T>(lane: SubscriberLane<T>): void {
  if (lane.closed) return;
  lane.closed = true;
  const failure = lane.failure;
  if (failure === undefined) {
    callComplete(lane);
    return;
  }
  // A subscriber without an `error` callback just ends: the producer that called `error()` knows.
  try {
    lane.observer.error?.(failure.error);
  } catch (error) {
    lane.host.reportError(error, undefined);
  }
}

function callComplete<T>(lane: SubscriberLane<T>): void {
  try {
    lane.observer.complete?.();
  } catch (error) {
    lane.host.reportError(error, undefined);
  }
}

/** Attaches no-op handlers to a thenable nobody waits for any more; never throws. */
function ignoreThenable(result: object): void {
  try {
    const then = (result as PromiseLike<unknown>).then;
    if (typeof then === 'function') then.call(result, undefined, () => undefined);
  } catch {
    // The subscriber is gone: its thenable's failure has no one to go to, as after an RxJS unsubscription.
  }
}
