import { CoordinationError, preview } from '@rxagents/core';

/**
 * An item failed the channel's item schema and was rejected at `emit`; nothing was delivered.
 *
 * @remarks
 * Channels created with a `schema` (for example through {@link AgentStreamBridge.createChannel}) check
 * every item before it enters the buffer. `issues` holds the schema's messages; `cause` holds the
 * validation error itself.
 *
 * @example
 * ```ts
 * import { z } from 'zod';
 * import { AgentStreamBridge, ChannelItemError } from '@rxagents/streaming';
 *
 * const bridge = new AgentStreamBridge();
 * const scores = bridge.createChannel('scores', { schema: z.number().min(0) });
 * try {
 *   scores.emit(-1);
 * } catch (error) {
 *   if (error instanceof ChannelItemError) console.log(error.issues); // ['Too small: expected number to be >=0']
 * }
 * ```
 */
export class ChannelItemError extends CoordinationError {
  /** The channel's id. */
  readonly channelId: string;
  /** The rejected item. */
  readonly item: unknown;
  /** What was wrong with it, one message per broken rule. */
  readonly issues: readonly string[];

  constructor(channelId: string, item: unknown, issues: readonly string[], cause?: unknown) {
    super('CHANNEL_ITEM_INVALID', `Channel "${channelId}" rejected item ${preview(item)}: ${issues.join('; ')}`, {
      retryable: false,
      context: { channelId, issues: [...issues] },
      cause,
    });
    this.channelId = channelId;
    this.item = item;
    this.issues = Object.freeze([...issues]);
  }
}
