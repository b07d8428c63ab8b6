import type { Observable } from 'rxjs';
import { z } from 'zod';
import { configRules } from '@rxagents/core';
import { BackpressureStrategySchema, type BackpressureStrategy } from './BackpressureStrategy';

/**
 * What a channel subscriber's handler may return: nothing, or something to wait for.
 *
 * @remarks
 * A Promise (or any thenable) or an Observable makes the dispatcher wait until it settles (completes,
 * for an Observable): that is how a slow consumer creates backpressure. Values an Observable emits are
 * ignored; a rejection or error is reported to the channel's `onError` handlers.
 *
 * @example
 * ```ts
 * import { timer } from 'rxjs';
 * import type { ChannelHandlerResult } from '@rxagents/streaming';
 *
 * const handle = (chunk: string): ChannelHandlerResult => (chunk.length > 100 ? timer(10) : undefined);
 * ```
 */
export type ChannelHandlerResult = void | PromiseLike<unknown> | Observable<unknown>;

/**
 * A channel subscriber given as a function: receives each item, may return a Promise or Observable to
 * pace the channel.
 *
 * @example
 * ```ts
 * import { StreamingChannel, type ChannelHandler } from '@rxagents/streaming';
 *
 * const save: ChannelHandler<string> = async (chunk) => {
 *   await Promise.resolve(chunk); // write to a database here
 * };
 * StreamingChannel.create<string>().subscribe(save);
 * ```
 */
export type ChannelHandler<T> = (item: T) => ChannelHandlerResult;

/**
 * A channel subscriber given as an observer: `next` as for {@link ChannelHandler}, `complete` when the
 * channel completes or closes, `error` when the channel errors (`channel.error(err)`, after the buffered
 * items) or the subscription fails (its own `ERROR` buffer overflowed). What `error` and `complete` throw
 * is reported to the channel's `onError` handlers.
 *
 * @example
 * ```ts
 * import { StreamingChannel, type ChannelObserver } from '@rxagents/streaming';
 *
 * const printer: Partial<ChannelObserver<string>> = {
 *   next: (chunk) => console.log(chunk),
 *   complete: () => console.log('done'),
 * };
 * StreamingChannel.create<string>().subscribe(printer);
 * ```
 */
export interface ChannelObserver<T> {
  next: ChannelHandler<T>;
  error: (error: unknown) => void;
  complete: () => void;
}

/**
 * The zod schema of {@link SubscribeOptions}.
 *
 * @example
 * ```ts
 * import { SubscribeOptionsSchema } from '@rxagents/streaming';
 *
 * console.log(SubscribeOptionsSchema.safeParse({ bufferSize: 0 }).success); // false
 * ```
 */
export const SubscribeOptionsSchema = z.strictObject({
  bufferSize: configRules.positiveInt().optional(),
  backpressure: BackpressureStrategySchema.optional(),
});

/**
 * Options of {@link StreamingChannel.subscribe}, `iterate`, `toReadableStream` and `asObservable`: give
 * the subscriber its own bounded buffer.
 *
 * @remarks
 * Without options a subscriber paces the whole channel: the dispatcher waits while its handler is
 * pending. With either option the subscriber gets its own buffer (`bufferSize` defaults to the channel's,
 * `backpressure` to the channel's strategy): the dispatcher hands it each item and moves on, and the
 * strategy acts on that buffer alone. `DROP_OLDEST`/`DROP_NEWEST` never hold the channel back; `ERROR`
 * fails that subscription with {@link BufferOverflowError}; `BLOCK` holds the dispatcher back only while
 * the subscriber's own buffer is full, so it loses nothing.
 *
 * @example
 * ```ts
 * import { BackpressureStrategy, StreamingChannel, type SubscribeOptions } from '@rxagents/streaming';
 *
 * const latestOnly: SubscribeOptions = { bufferSize: 8, backpressure: BackpressureStrategy.DROP_OLDEST };
 * StreamingChannel.create<string>().subscribe((token) => console.log(token), latestOnly);
 * ```
 */
export interface SubscribeOptions {
  /** Capacity of the subscriber's own buffer. */
  readonly bufferSize?: number;
  /** What happens when the subscriber's own buffer is full. */
  readonly backpressure?: BackpressureStrategy;
}
