import { CoordinationError } from '@rxagents/core';

/**
 * An item was emitted or offered to a channel after `complete()`, `close()` or `error()`.
 *
 * @remarks
 * `state` tells which end state refused the item: `completed` (draining or drained), `closed`
 * (discarded) or `errored` (the producer failed; `cause` holds the error given to `error()`). Offers
 * parked under `BLOCK` when `error()` is called reject with it too. It is also the `reason` of a
 * channel's `signal` once the last subscriber has left under `onLastUnsubscribe: 'abort'`. Not
 * retryable: the channel will never accept items again.
 *
 * @example
 * ```ts
 * import { ChannelClosedError, StreamingChannel } from '@rxagents/streaming';
 *
 * const channel = StreamingChannel.create<string>({ id: 'done' });
 * channel.complete();
 * try {
 *   channel.emit('late');
 * } catch (error) {
 *   if (error instanceof ChannelClosedError) console.log(error.message); // Channel "done" is completed; it accepts no more items
 * }
 * ```
 */
export class ChannelClosedError extends CoordinationError {
  /** The channel's id. */
  readonly channelId: string;
  /** Which end state refused the item. */
  readonly state: 'completed' | 'closed' | 'errored';

  constructor(channelId: string, state: 'completed' | 'closed' | 'errored', cause?: unknown) {
    super('CHANNEL_CLOSED', `Channel "${channelId}" is ${state}; it accepts no more items`, {
      retryable: false,
      context: { channelId, state },
      cause,
    });
    this.channelId = channelId;
    this.state = state;
  }
}
