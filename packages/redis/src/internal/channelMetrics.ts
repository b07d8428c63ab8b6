import type { ChannelMetrics, ChannelMetricsJson } from '@rxagents/streaming';

/** A frozen {@link ChannelMetrics} snapshot from counters, with `dropRate` and `toJSON` as a local channel's. */
export function channelMetrics(counters: Omit<ChannelMetrics, 'dropRate' | 'toJSON'>): ChannelMetrics {
  const dropRate = (): number => (counters.emitted === 0 ? 0 : (counters.dropped / counters.emitted) * 100);
  return Object.freeze({ ...counters, dropRate, toJSON: (): ChannelMetricsJson => ({ ...counters, dropRate: dropRate() }) });
}
