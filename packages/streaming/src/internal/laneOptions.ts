import { parseConfig } from '@rxagents/core';
import { BackpressureStrategy } from '../BackpressureStrategy';
import { type SubscribeOptions, SubscribeOptionsSchema } from '../ChannelSubscriber';

/** The buffer of one subscriber: `bufferSize` undefined for none (the subscriber paces the channel). @internal */
export interface LaneOptions {
  readonly bufferSize: number | undefined;
  readonly strategy: BackpressureStrategy;
}

/**
 * A subscriber's own buffer: none without options, else the options' size and strategy, the channel's by default.
 *
 * @throws {@link @rxagents/core!ConfigError | ConfigError} when `options` break their rules.
 * @internal
 */
export function laneOptions(options: SubscribeOptions | undefined, channel: { readonly bufferSize: number; readonly backpressure: BackpressureStrategy }): LaneOptions {
  if (options === undefined) return { bufferSize: undefined, strategy: BackpressureStrategy.BLOCK };
  const parsed = parseConfig(SubscribeOptionsSchema, options, 'StreamingChannel subscribe options');
  if (parsed.bufferSize === undefined && parsed.backpressure === undefined) return { bufferSize: undefined, strategy: BackpressureStrategy.BLOCK };
  return { bufferSize: parsed.bufferSize ?? channel.bufferSize, strategy: parsed.backpressure ?? channel.backpressure };
}
