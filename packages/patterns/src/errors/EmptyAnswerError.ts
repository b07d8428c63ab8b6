import { CoordinationError } from '@rxagents/core';

/**
 * A supervisor replied with no answer: an empty or blank reply, or `FINAL:` with nothing after it.
 *
 * @remarks
 * Ends a supervisor run with status `failed` and this error as `result.error`, rather than completing
 * with `''` as its output: an empty reply is most often a model that produced nothing (a content filter,
 * a token limit spent before any text, a stream cut short), not an answer. Retryable: the same supervisor
 * asked again may answer.
 *
 * @example
 * ```ts
 * import { EmptyAnswerError } from '@rxagents/patterns';
 *
 * const error = new EmptyAnswerError('lead', 'FINAL:');
 * console.log(error.message); // lead gave no answer: its reply "FINAL:" is neither a delegation nor a final answer with text
 * ```
 */
export class EmptyAnswerError extends CoordinationError {
  /** The agent whose reply held no answer. */
  readonly agentId: string;

  constructor(agentId: string, reply: string) {
    super('EMPTY_ANSWER', `${agentId} gave no answer: its reply ${JSON.stringify(reply)} is neither a delegation nor a final answer with text`, {
      retryable: true,
      context: { agentId, reply },
    });
    this.agentId = agentId;
  }
}
