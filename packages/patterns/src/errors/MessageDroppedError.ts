import { CoordinationError } from '@rxagents/core';

/**
 * A pattern's channel dropped a message the run needed, so the run cannot collect it.
 *
 * @remarks
 * FanIn, Barrier and Conversation collect what they post back from the channel. When the channel
 * drops a posted message (a `DROP_NEWEST`/`DROP_OLDEST` channel behind a slow watcher, or a `BLOCK`
 * channel whose `offerTimeout` passes while the message waits for room), the run ends with status
 * `failed` and this error, instead of waiting forever for a message that will never arrive. Retryable:
 * a second run may meet a faster watcher.
 *
 * @example
 * ```ts
 * import { MessageDroppedError } from '@rxagents/patterns';
 *
 * const error = new MessageDroppedError('voting', 'judge-2');
 * console.log(error.code, error.message);
 * // MESSAGE_DROPPED Pattern "voting" lost the message of agent "judge-2": the channel dropped it
 * ```
 */
export class MessageDroppedError extends CoordinationError {
  /** The pattern whose message was lost. */
  readonly pattern: string;
  /** The agent whose message (reply or result) was lost. */
  readonly agentId: string;

  constructor(pattern: string, agentId: string) {
    super('MESSAGE_DROPPED', `Pattern "${pattern}" lost the message of agent "${agentId}": the channel dropped it`, {
      retryable: true,
      context: { pattern, agentId },
    });
    this.pattern = pattern;
    this.agentId = agentId;
  }
}
