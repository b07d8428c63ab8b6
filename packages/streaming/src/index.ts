export { BackpressureStrategy, BackpressureStrategySchema } from './BackpressureStrategy';
export type { DropReason } from './DropReason';
export { backpressure, BackpressureOptionsSchema, type BackpressureOptions } from './backpressure';
export { BufferOverflowError } from './errors/BufferOverflowError';
export { ChannelClosedError } from './errors/ChannelClosedError';
export { ChannelItemError } from './errors/ChannelItemError';
export { DuplicateChannelError } from './errors/DuplicateChannelError';
export { UnknownChannelError } from './errors/UnknownChannelError';
export { StreamingChannel, StreamingChannelBuilder } from './StreamingChannel';
export { StreamingChannelOptionsSchema, type StreamingChannelOptions, type ItemSchema } from './StreamingChannelOptions';
export type { ChannelMetrics, ChannelMetricsJson } from './ChannelMetrics';
export {
  SubscribeOptionsSchema,
  type SubscribeOptions,
  type ChannelHandler,
  type ChannelHandlerResult,
  type ChannelObserver,
} from './ChannelSubscriber';
export { toChannel, ToChannelOptionsSchema, type ToChannelOptions } from './toChannel';
export { AgentStreamBridge, BridgeChannelOptionsSchema, type BridgeChannelOptions, type SchemaOutput } from './AgentStreamBridge';
