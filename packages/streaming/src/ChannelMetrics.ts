/**
 * A snapshot of a channel's counters, from {@link StreamingChannel.metrics} or `metrics$`.
 *
 * @remarks
 * Whenever the channel is idle (no emit running, no handler pending),
 * `emitted = delivered + dropped + bufferUsed + pendingOffers`:
 * - `emitted` counts every item given to `emit`/`emitAll`/`offer`/`offer$` that the channel took in (it
 *   was open and the item passed the schema), including items later dropped;
 * - `delivered` counts items the dispatcher has handed to every subscriber of that moment (called the
 *   handler of a subscriber without its own buffer, or placed the item in a subscriber's own buffer);
 * - `dropped` counts items lost at the channel: by its strategy, by an offer timeout or the parked-offer
 *   cap, by a cancelled `offer$`, or discarded by `close()`;
 * - `bufferUsed` counts items waiting in the channel's buffer, `pendingOffers` items parked under `BLOCK`.
 *
 * `subscriberDropped` counts items lost from subscribers' own buffers (once per subscriber and item);
 * those items were delivered to the channel's view, so they are outside the equation.
 *
 * A snapshot is plain data: `JSON.stringify(metrics)` gives every counter and `dropRate` as a number
 * (through `toJSON`), so metrics can go over a wire or into a log as they are.
 *
 * @example
 * ```ts
 * import { StreamingChannel } from '@rxagents/streaming';
 *
 * const channel = StreamingChannel.create<number>({ bufferSize: 2 });
 * [1, 2, 3].forEach((n) => channel.emit(n));
 * const m = channel.metrics();
 * console.log(m.emitted, m.dropped, m.bufferUsed, m.dropRate()); // 3 1 2 33.33333333333333
 * ```
 */
export interface ChannelMetrics {
  readonly channelId: string;
  readonly emitted: number;
  readonly delivered: number;
  readonly dropped: number;
  readonly bufferUsed: number;
  readonly bufferCapacity: number;
  readonly pendingOffers: number;
  readonly subscriberCount: number;
  /** Items dropped from subscribers' own buffers. */
  readonly subscriberDropped: number;
  /** `complete()` was called (or the parent of a derived channel completed): no new items are accepted. */
  readonly completed: boolean;
  /** `close()` was called (or the last subscriber left under `onLastUnsubscribe`): the buffer was discarded and nothing more is delivered. */
  readonly closed: boolean;
  /** `error()` was called: no new items are accepted; subscribers receive the error after the buffered items. */
  readonly errored: boolean;
  /** The dropped share of emitted items, in percent; 0 when nothing was emitted. */
  dropRate(): number;
  /** The snapshot as JSON data: every counter, and `dropRate` as a number. */
  toJSON(): ChannelMetricsJson;
}

/** The counters of a {@link ChannelMetrics}, without `dropRate`. @internal */
export type ChannelCounters = Omit<ChannelMetrics, 'dropRate' | 'toJSON'>;

/**
 * A {@link ChannelMetrics} snapshot as JSON data, what `JSON.stringify(metrics)` writes.
 *
 * @example
 * ```ts
 * import { StreamingChannel, type ChannelMetricsJson } from '@rxagents/streaming';
 *
 * const channel = StreamingChannel.create<number>({ bufferSize: 1 });
 * [1, 2].forEach((n) => channel.emit(n));
 * const data: ChannelMetricsJson = JSON.parse(JSON.stringify(channel.metrics()));
 * console.log(data.dropRate); // 50
 * ```
 */
export type ChannelMetricsJson = ChannelCounters & { readonly dropRate: number };

/**
 * Builds a frozen {@link ChannelMetrics} snapshot from counters.
 *
 * @internal
 */
export function createChannelMetrics(counters: ChannelCounters): ChannelMetrics {
  const dropRate = (): number => (counters.emitted === 0 ? 0 : (counters.dropped / counters.emitted) * 100);
  return Object.freeze({
    ...counters,
    dropRate,
    toJSON: (): ChannelMetricsJson => ({ ...counters, dropRate: dropRate() }),
  });
}
