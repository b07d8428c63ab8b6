import type { Subscription } from 'rxjs';
import { parseConfig } from '@rxagents/core';
import type { BackpressureStrategy } from './BackpressureStrategy';
import type { ChannelHandler, ChannelObserver, SubscribeOptions } from './ChannelSubscriber';
import { DuplicateChannelError } from './errors/DuplicateChannelError';
import { UnknownChannelError } from './errors/UnknownChannelError';
import { StreamingChannel } from './StreamingChannel';
import { type ItemSchema, type StreamingChannelOptions, StreamingChannelOptionsSchema } from './StreamingChannelOptions';

/**
 * Options of {@link AgentStreamBridge.createChannel}: channel options without `id` (the name is the id).
 *
 * @example
 * ```ts
 * import { AgentStreamBridge, BackpressureStrategy, type BridgeChannelOptions } from '@rxagents/streaming';
 *
 * const options: BridgeChannelOptions<string> = { bufferSize: 512, backpressure: BackpressureStrategy.BLOCK };
 * new AgentStreamBridge().createChannel('drafts', options);
 * ```
 */
export type BridgeChannelOptions<T> = Omit<StreamingChannelOptions<T>, 'id'>;

/**
 * The zod schema of {@link BridgeChannelOptions}: the channel options without `id` (strict, so an `id`
 * among them is refused: the channel's name is its id).
 *
 * @example
 * ```ts
 * import { BridgeChannelOptionsSchema } from '@rxagents/streaming';
 *
 * console.log(BridgeChannelOptionsSchema.safeParse({ bufferSize: 512 }).success); // true
 * console.log(BridgeChannelOptionsSchema.safeParse({ id: 'drafts' }).success); // false
 * ```
 */
export const BridgeChannelOptionsSchema = StreamingChannelOptionsSchema.omit({ id: true });

/**
 * Keeps channels by name so agents can find each other's streams.
 *
 * @remarks
 * `createChannel(name)` makes a 256-item `DROP_OLDEST` channel whose id is the name; options change the
 * buffer size, strategy and anything else a channel takes. An optional zod `schema` types the channel and
 * checks every item at `emit`: a failing item is rejected with {@link ChannelItemError} and nothing is
 * delivered. Creating a name twice throws {@link DuplicateChannelError}; `getChannel` returns `undefined`
 * for an unknown name while `subscribe` throws {@link UnknownChannelError}. `removeChannel` and `close`
 * close the channels they remove.
 *
 * @example
 * ```ts
 * import { z } from 'zod';
 * import { AgentStreamBridge } from '@rxagents/streaming';
 *
 * const bridge = new AgentStreamBridge();
 * const results = bridge.createChannel('analysis-results', { schema: z.string() });
 * bridge.subscribe<string>('analysis-results', (chunk) => console.log(chunk));
 * results.emit('partial result');
 * ```
 */
export class AgentStreamBridge {
  readonly #channels = new Map<string, StreamingChannel<unknown>>();

  /**
   * Creates a named channel (256 items, `DROP_OLDEST` unless `options` say otherwise).
   *
   * @throws {@link DuplicateChannelError} when the name is taken.
   * @throws {@link @rxagents/core!ConfigError | ConfigError} when the name is blank, an option breaks its rule, or `options` hold an `id` (the name is the id).
   */
  createChannel<S extends ItemSchema<unknown>>(name: string, options: BridgeChannelOptions<unknown> & { readonly schema: S }): StreamingChannel<SchemaOutput<S>>;
  createChannel<T>(name: string, options?: BridgeChannelOptions<T>): StreamingChannel<T>;
  /** The short form: a buffer size and a backpressure strategy. */
  createChannel<T>(name: string, bufferSize: number, backpressure: BackpressureStrategy): StreamingChannel<T>;
  createChannel<T>(name: string, options: BridgeChannelOptions<T> | number = {}, backpressure?: BackpressureStrategy): StreamingChannel<T> {
    if (this.#channels.has(name)) throw new DuplicateChannelError(name);
    const settings: StreamingChannelOptions<T> =
      typeof options === 'number'
        ? { id: name, bufferSize: options, ...(backpressure === undefined ? {} : { backpressure }) }
        : { ...(parseConfig(BridgeChannelOptionsSchema, options, `AgentStreamBridge channel "${name}" options`) as BridgeChannelOptions<T>), id: name };
    const channel = StreamingChannel.create<T>(settings);
    this.#channels.set(name, channel as StreamingChannel<unknown>);
    return channel;
  }

  /** The channel of that name, or `undefined`. */
  getChannel<T>(name: string): StreamingChannel<T> | undefined {
    return this.#channels.get(name) as StreamingChannel<T> | undefined;
  }

  /**
   * Subscribes to the channel of that name.
   *
   * @throws {@link UnknownChannelError} when there is no such channel.
   */
  subscribe<T>(name: string, consumer: ChannelHandler<T> | Partial<ChannelObserver<T>>, options?: SubscribeOptions): Subscription {
    const channel = this.getChannel<T>(name);
    if (channel === undefined) throw new UnknownChannelError(name, this.names());
    return channel.subscribe(consumer, options);
  }

  /** Removes and closes the channel of that name; returns whether there was one. */
  removeChannel(name: string): boolean {
    const channel = this.#channels.get(name);
    if (channel === undefined) return false;
    this.#channels.delete(name);
    channel.close();
    return true;
  }

  /** The names of the channels, in creation order. */
  names(): string[] {
    return [...this.#channels.keys()];
  }

  /** Removes and closes every channel. The bridge stays usable. */
  close(): void {
    for (const name of this.names()) this.removeChannel(name);
  }
}

/**
 * The item type a channel's schema produces: the type `AgentStreamBridge.createChannel` infers from it.
 *
 * @example
 * ```ts
 * import { z } from 'zod';
 * import type { SchemaOutput } from '@rxagents/streaming';
 *
 * const Token = z.object({ agentId: z.string(), text: z.string() });
 * const token: SchemaOutput<typeof Token> = { agentId: 'writer', text: 'Hello' };
 * ```
 */
export type SchemaOutput<S> = S extends ItemSchema<infer T> ? T : never;
