import { CoordinationError } from '@rxagents/core';

/**
 * A channel of that name already exists in an {@link AgentStreamBridge}.
 *
 * @remarks
 * Thrown by {@link AgentStreamBridge.createChannel}. Remove the old channel first (`removeChannel`) or
 * pick another name.
 *
 * @example
 * ```ts
 * import { AgentStreamBridge, DuplicateChannelError } from '@rxagents/streaming';
 *
 * const bridge = new AgentStreamBridge();
 * bridge.createChannel<string>('results');
 * try {
 *   bridge.createChannel<string>('results');
 * } catch (error) {
 *   if (error instanceof DuplicateChannelError) console.log(error.code); // DUPLICATE_CHANNEL
 * }
 * ```
 */
export class DuplicateChannelError extends CoordinationError {
  /** The name that is already taken. */
  readonly channelName: string;

  constructor(channelName: string) {
    super('DUPLICATE_CHANNEL', `A channel named "${channelName}" already exists`, {
      retryable: false,
      context: { channelName },
    });
    this.channelName = channelName;
  }
}
