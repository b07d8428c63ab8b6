import { mergeMap, type OperatorFunction, tap } from 'rxjs';
import { z } from 'zod';
import { ConfigError, parseConfig } from '@rxagents/core';
import type { StreamingChannel } from './StreamingChannel';

/**
 * Options of {@link toChannel}.
 *
 * @example
 * ```ts
 * import { of } from 'rxjs';
 * import { StreamingChannel, toChannel, type ToChannelOptions } from '@rxagents/streaming';
 *
 * const options: ToChannelOptions = { complete: true };
 * of('a', 'b').pipe(toChannel(StreamingChannel.create<string>(), options)).subscribe();
 * ```
 */
export interface ToChannelOptions {
  /** End the channel with the source: `complete()` it when the source completes, `error(err)` it when the source errors. Default false (a channel may have several producers). */
  readonly complete?: boolean;
}

/**
 * The zod schema of {@link ToChannelOptions} (strict: an unknown key is a `ConfigError`).
 *
 * @example
 * ```ts
 * import { ToChannelOptionsSchema } from '@rxagents/streaming';
 *
 * console.log(ToChannelOptionsSchema.safeParse({ complete: true }).success); // true
 * console.log(ToChannelOptionsSchema.safeParse({ complet: true }).success); // false
 * ```
 */
export const ToChannelOptionsSchema = z.strictObject({
  complete: z.boolean({ error: 'must be a boolean' }).optional(),
});

/**
 * Pipes an Observable (an agent's token stream, say) into a channel, honouring `BLOCK` through `offer$`.
 *
 * @remarks
 * Each source value is offered with {@link StreamingChannel.offer$} as it arrives; under `BLOCK` the
 * channel parks it (FIFO, so order is kept) until there is space or `offerTimeout` passes, at most
 * `maxPendingOffers` at a time. The result emits, as each offer settles, whether its value was accepted
 * (`true`) or dropped (`false`) (accepted values keep their source order), and completes when the source has completed and every offer has settled
 * (completing the channel too with `{ complete: true }`). Source errors pass through (and, with
 * `{ complete: true }`, end the channel with {@link StreamingChannel.error}, so its readers see them after
 * the items already accepted); an offer to a closed channel errors with {@link ChannelClosedError}.
 * Unsubscribing withdraws parked offers.
 *
 * @throws {@link @rxagents/core!ConfigError | ConfigError} when `channel` is not a channel or `options` break their rules (unknown keys included).
 *
 * @example
 * ```ts
 * import { defineAgent, stream } from '@rxagents/core';
 * import { BackpressureStrategy, StreamingChannel, toChannel } from '@rxagents/streaming';
 * import { from } from 'rxjs';
 *
 * const writer = defineAgent('writer', () => from(['Once ', 'upon ', 'a time']));
 * const tokens = StreamingChannel.create<string>({ id: 'tokens', backpressure: BackpressureStrategy.BLOCK });
 * tokens.subscribe((token) => console.log(token));
 * stream(writer, 'Tell a story').pipe(toChannel(tokens, { complete: true })).subscribe();
 * ```
 */
export function toChannel<T>(channel: StreamingChannel<T>, options: ToChannelOptions = {}): OperatorFunction<T, boolean> {
  if (typeof (channel as Partial<StreamingChannel<T>> | null)?.offer$ !== 'function') {
    throw new ConfigError('toChannel', [{ path: 'channel', rule: 'must be a StreamingChannel (with offer$())', received: channel }]);
  }
  const { complete } = parseConfig(ToChannelOptionsSchema, options, 'toChannel options');
  // Composed from operators (not a hand-made Observable over a plain observer), so a synchronous source
  // stops at once when downstream unsubscribes.
  return (source) =>
    source.pipe(
      mergeMap((value) => channel.offer$(value)),
      tap({
        error: (error: unknown) => {
          if (complete === true) channel.error(error);
        },
        complete: () => {
          if (complete === true) channel.complete();
        },
      }),
    );
}
