import { CoordinationError } from '@rxagents/core';

/**
 * No channel of that name exists in an {@link AgentStreamBridge}.
 *
 * @remarks
 * Thrown by {@link AgentStreamBridge.subscribe}; `getChannel` returns `undefined` instead. `context`
 * lists the names that do exist.
 *
 * @example
 * ```ts
 * import { AgentStreamBridge, UnknownChannelError } from '@rxagents/streaming';
 *
 * const bridge = new AgentStreamBridge();
 * try {
 *   bridge.subscribe('nowhere', (item) => console.log(item));
 * } catch (error) {
 *   if (error instanceof UnknownChannelError) console.log(error.channelName); // nowhere
 * }
 * ```
 */
export class UnknownChannelError extends CoordinationError {
  /** The name that was looked up. */
  readonly channelName: string;

  constructor(channelName: string, known: readonly string[] = []) {
    super('UNKNOWN_CHANNEL', `No channel named "${channelName}"${known.length === 0 ? '' : ` (known: ${known.join(', ')})`}`, {
      retryable: false,
      context: { channelName, known: [...known] },
    });
    this.channelName = channelName;
  }
}
