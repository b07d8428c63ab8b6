import { CoordinationError } from '@rxagents/core';

/**
 * An item was emitted or offered to a channel after `complete()` or `close()`.
 *
 * @remarks
 * `state` tells which end state refused the item: `completed` (draining or drained) or `closed`
 * (discarded). Not retryable: the channel will never accept items again.
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
  readonly state: 'completed' | 'closed';

  constructor(channelId: string, state: 'completed' | 'closed') {
    super('CHANNEL_CLOSED', `Channel "${channelId}" is ${state}; it accepts no more items`, {
      retryable: false,
      context: { channelId, state },
    });
    this.channelId = channelId;
    this.state = state;
  }
}
