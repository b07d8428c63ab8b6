import type { ChannelHandler, ChannelMetrics, ChannelObserver } from '@rxagents/streaming';
import type { Observable, Subscription } from 'rxjs';

/**
 * A channel whose items cross processes through one Redis stream, as {@link redisChannel} returns it:
 * the producer's and the consumers' side of one channel id, in any number of processes.
 *
 * @remarks
 * The names and strategies are `StreamingChannel`'s; what differs across processes:
 * - `offer` and `emit` write to Redis, so they are asynchronous: `offer` resolves `true` once the item is
 *   stored, `emit` queues the item behind this process's earlier offers and returns `true` (its fate shows
 *   in `metrics()`; failures go to `onError`). Items must be JSON data.
 * - `complete`, `error` and `close` write the end entry and resolve once it is stored; the first end
 *   written by any process wins. `error(err)` reaches consumers as a {@link RemoteChannelError}.
 * - A consumer (`subscribe`, `asObservable`, `for await`) reads the stream from the oldest item a live
 *   consumer has not handled yet (with none, from the oldest item the stream holds), at its own pace.
 * - `metrics()` counts what this process did; {@link RedisChannel.sharedMetrics} reads the counters of
 *   every process from Redis.
 *
 * @example
 * ```ts
 * import type { RedisChannel } from '@rxagents/redis';
 *
 * export async function produce(channel: RedisChannel<string>): Promise<void> {
 *   for (const token of ['The ', 'answer ', 'is ', '42.']) await channel.offer(token);
 *   await channel.complete();
 * }
 * ```
 */
export interface RedisChannel<T> extends AsyncIterable<T> {
  /** The channel's id: the same in every process that uses the channel. */
  readonly id: string;
  /**
   * This process's metrics: the snapshot at once, then at most one per `metricsSampleTime` (on
   * `scheduler`) while they change; completes when the channel has ended as far as this process knows.
   */
  readonly metrics$: Observable<ChannelMetrics>;
  /**
   * Stores `item` as the next entry of the stream; resolves `true` once it is stored, `false` when it was
   * dropped (`DROP_NEWEST` with a full buffer, `BLOCK` past `offerTimeout` or past `maxPendingOffers`, or
   * `close()` discarded it).
   *
   * @remarks
   * Offers of one process are stored in the order they were made. Rejects with `ChannelClosedError`
   * once the channel has ended (in any process), `BufferOverflowError` under `ERROR` with a full buffer,
   * `ChannelItemError` when the item fails the item schema or is not JSON data.
   */
  offer(item: T): Promise<boolean>;
  /**
   * Queues `item` as `offer` does, without waiting: returns `true` once queued; the item's fate shows in
   * `metrics()` and a failure (`BufferOverflowError`, a Redis error) goes to `onError` handlers.
   *
   * @throws `ChannelClosedError` when this process knows the channel has ended; `ChannelItemError` when the item fails the item schema or is not JSON data.
   */
  emit(item: T): boolean;
  /** Emits every item in order; returns how many were queued. */
  emitAll(items: Iterable<T>): number;
  /** Refuses new items, waits for this process's queued offers, then stores the `complete` entry: consumers complete after the items before it. */
  complete(): Promise<void>;
  /**
   * Ends the channel with a failure: this process's queued offers are refused (`ChannelClosedError`,
   * state `errored`), then the `error` entry is stored; consumers receive the items before it, then a
   * {@link RemoteChannelError} carrying `error` as data.
   */
  error(error: unknown): Promise<void>;
  /** Stops at once: this process's queued offers resolve `false`, the `close` entry is stored and the stream is trimmed up to it, so consumers skip the items they have not read (counted as dropped) and complete. */
  close(): Promise<void>;
  /** This process's counters (see the `ChannelMetrics` notes in `docs/redis.md`). */
  metrics(): ChannelMetrics;
  /** The counters of every process, read from Redis: `emitted`, `delivered`, `dropped` shared; `bufferUsed` the slowest live consumer's backlog; `subscriberCount` the live consumers. */
  sharedMetrics(): Promise<ChannelMetrics>;
  /**
   * Starts a consumer in this process: every item from where it starts, in order, then `complete` or `error`.
   *
   * @remarks
   * A handler that returns a Promise or an Observable is waited for before the next item is read, and
   * the consumer's position (what `BLOCK` waits on) moves only when it settles. A throwing handler, a
   * malformed entry or an item failing the item schema go to `onError` handlers; the consumer goes on.
   * Unsubscribing removes the consumer from Redis at once.
   */
  subscribe(subscriber: ChannelHandler<T> | Partial<ChannelObserver<T>>): Subscription;
  /** The channel as an Observable: each subscription is a consumer that reads as fast as the stream gives. */
  asObservable(): Observable<T>;
  /** An async iterator for `for await`: a consumer paced by the loop (the next item is read once the body has run); leaving the loop unsubscribes. */
  iterate(): AsyncIterableIterator<T>;
  /** Registers a handler for what consumers here skip or fail on (a throwing handler, a malformed entry, an invalid item) and for failed `emit`s. */
  onError(handler: (error: unknown, item: T | undefined) => void): Subscription;
}
