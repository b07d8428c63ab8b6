import type { Subscription } from 'rxjs';
import { BackpressureStrategy } from '../BackpressureStrategy';
import type { ChannelObserver } from '../ChannelSubscriber';
import { BufferOverflowError } from '../errors/BufferOverflowError';
import { Ack } from './Ack';
import { Overflow, overflow } from './overflow';
import { RingBuffer } from './RingBuffer';

const nativeThen = Promise.prototype.then;

/** What a {@link SubscriberLane} needs from its channel. @internal */
export interface LaneHost<T> {
  readonly id: string;
  /** The lane started or stopped holding the dispatcher back. */
  blockingChanged(blocking: boolean): void;
  /** A handler threw or rejected. */
  reportError(error: unknown, item: T | undefined): void;
  /** The lane's own buffer dropped an item. */
  laneDropped(): void;
  /** The lane failed (its `ERROR` buffer overflowed) and must be removed. */
  laneFailed(lane: SubscriberLane<T>): void;
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
 * @internal
 */
export class SubscriberLane<T> {
  blocking = false;
  #pending = false;
  #closed = false;
  #completing = false;
  #draining = false;
  #inner: Subscription | undefined;
  #item: T | undefined;
  readonly #onFulfilled = (): void => this.#settled();
  readonly #onRejected = (error: unknown): void => {
    if (!this.#closed) this.#host.reportError(error, this.#item);
    this.#settled();
  };
  readonly #host: LaneHost<T>;
  readonly #observer: Partial<ChannelObserver<T>>;
  readonly #next: (item: T) => unknown;
  readonly #buffer: RingBuffer<T> | undefined;
  readonly #strategy: BackpressureStrategy;

  constructor(host: LaneHost<T>, observer: Partial<ChannelObserver<T>>, bufferSize: number | undefined, strategy: BackpressureStrategy) {
    this.#host = host;
    this.#observer = observer;
    this.#next = typeof observer.next === 'function' ? observer.next.bind(observer) : () => undefined;
    this.#buffer = bufferSize === undefined ? undefined : new RingBuffer<T>(bufferSize);
    this.#strategy = strategy;
  }

  /** Items waiting in the lane's own buffer. */
  get buffered(): number {
    return this.#buffer === undefined ? 0 : this.#buffer.size;
  }

  /** Hands one item to the subscriber; the dispatcher only calls it while the lane is not blocking. */
  deliver(item: T): void {
    // Another subscriber may unsubscribe this one, or close the channel, while the same item is being handed out.
    if (this.#closed) return;
    // While the lane drains its own buffer (a handler may emit back into the channel meanwhile), a new
    // item queues behind the buffered ones: order per subscriber is channel order.
    if (!this.#pending && !this.#draining) {
      this.#run(item);
      return;
    }
    const buffer = this.#buffer as RingBuffer<T>;
    if (!buffer.full) {
      buffer.push(item);
      if (buffer.full && this.#strategy === BackpressureStrategy.BLOCK) this.#setBlocking(true);
      return;
    }
    // DROP_OLDEST made room; DROP_NEWEST (and BLOCK, should a full lane still be handed an item) drops it.
    const outcome = overflow(this.#strategy, buffer, item);
    this.#host.laneDropped();
    if (outcome === Overflow.Failed) this.#fail(new BufferOverflowError(this.#host.id, buffer.capacity, 'a subscriber buffer'));
  }

  /** The channel finished: complete the subscriber once its own buffer is delivered. */
  complete(): void {
    this.#completing = true;
    if (!this.#pending && !this.#draining) this.#finish();
  }

  /** The channel closed: discard the own buffer, cancel a pending handler, complete the subscriber. */
  close(): void {
    if (this.#closed) return;
    const discarded = this.buffered;
    this.dispose();
    for (let i = 0; i < discarded; i++) this.#host.laneDropped();
    this.#callComplete();
  }

  /** Unsubscribed: stop everything silently. */
  dispose(): void {
    this.#closed = true;
    const inner = this.#inner;
    this.#inner = undefined;
    this.#buffer?.clear();
    try {
      inner?.unsubscribe();
    } catch (error) {
      // A teardown of the handler's Observable threw (RxJS's UnsubscriptionError).
      this.#host.reportError(error, undefined);
    }
  }

  #run(item: T): void {
    let result: unknown;
    try {
      result = this.#next(item);
    } catch (error) {
      this.#host.reportError(error, item);
      return;
    }
    if (result === undefined || result === null || typeof result !== 'object') return;
    // Unsubscribed by its own handler: nothing to wait for. A thenable still gets handlers, so a
    // rejection is not reported as unhandled; an Observable is not subscribed (that would start work).
    if (this.#closed) {
      if (!(result instanceof Ack)) ignoreThenable(result);
      return;
    }
    if (result instanceof Ack) {
      this.#startPending();
      result.whenReleased(this.#onFulfilled);
      return;
    }
    // Reading `then`/`subscribe` runs the user's code (a getter); what it throws is that item's failure.
    let kind: 'promise' | 'observable' | undefined;
    try {
      if (typeof (result as PromiseLike<unknown>).then === 'function') kind = 'promise';
      else if (typeof (result as { subscribe?: unknown }).subscribe === 'function') kind = 'observable';
    } catch (error) {
      this.#host.reportError(error, item);
      return;
    }
    if (kind === 'promise') this.#awaitPromise(result as PromiseLike<unknown>, item);
    else if (kind === 'observable') this.#awaitObservable(result as { subscribe: (o: object) => Subscription }, item);
  }

  #awaitPromise(promise: PromiseLike<unknown>, item: T): void {
    this.#item = item;
    this.#startPending();
    if (promise instanceof Promise && promise.then === nativeThen) {
      promise.then(this.#onFulfilled, this.#onRejected);
      return;
    }
    // A hand-made thenable may call back twice, or both callbacks, or throw: only the first outcome counts.
    let called = false;
    try {
      promise.then(
        () => {
          if (called) return;
          called = true;
          this.#onFulfilled();
        },
        (error: unknown) => {
          if (called) return;
          called = true;
          this.#onRejected(error);
        },
      );
    } catch (error) {
      if (called) {
        if (!this.#closed) this.#host.reportError(error, item);
      } else {
        called = true;
        this.#onRejected(error);
      }
    }
  }

  #awaitObservable(source: { subscribe: (o: object) => Subscription }, item: T): void {
    this.#startPending();
    let finished = false;
    const failed = (error: unknown): void => {
      if (finished) return;
      finished = true;
      this.#inner = undefined;
      if (!this.#closed) this.#host.reportError(error, item);
      this.#settled();
    };
    let inner: Subscription;
    try {
      inner = source.subscribe({
        error: failed,
        complete: () => {
          if (finished) return;
          finished = true;
          this.#inner = undefined;
          this.#settled();
        },
      });
    } catch (error) {
      if (finished) {
        if (!this.#closed) this.#host.reportError(error, item);
      } else failed(error);
      return;
    }
    if (finished) return;
    this.#inner = inner;
    // Unsubscribed (or closed) while subscribing to the handler's Observable: cancel it now.
    if (this.#closed) this.dispose();
  }

  #startPending(): void {
    this.#pending = true;
    if (this.#buffer === undefined || (this.#strategy === BackpressureStrategy.BLOCK && this.#buffer.full)) this.#setBlocking(true);
  }

  #settled(): void {
    if (this.#closed) return;
    this.#pending = false;
    this.#item = undefined;
    if (this.#draining) return;
    this.#draining = true;
    const buffer = this.#buffer;
    while (!this.#pending && !this.#closed && buffer !== undefined && buffer.size > 0) {
      const item = buffer.shift();
      this.#run(item);
    }
    this.#draining = false;
    if (this.#closed) return;
    if (this.blocking && !(this.#pending && (buffer === undefined || buffer.full))) this.#setBlocking(false);
    if (this.#completing && !this.#pending) this.#finish();
  }

  #setBlocking(blocking: boolean): void {
    if (this.blocking === blocking) return;
    this.blocking = blocking;
    this.#host.blockingChanged(blocking);
  }

  #fail(error: unknown): void {
    this.dispose();
    this.#host.laneFailed(this);
    if (this.#observer.error === undefined) {
      this.#host.reportError(error, undefined);
      return;
    }
    try {
      this.#observer.error(error);
    } catch (callbackError) {
      this.#host.reportError(callbackError, undefined);
    }
  }

  #finish(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#callComplete();
  }

  #callComplete(): void {
    try {
      this.#observer.complete?.();
    } catch (error) {
      this.#host.reportError(error, undefined);
    }
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
