import { CoordinationError } from '@rxagents/core';

/**
 * An answer to a run's question that did not reach the server: `fetch` failed before any response (the
 * network, the server down, a CORS refusal). Code `ANSWER_NOT_SENT`, retryable; the `cause` is `fetch`'s
 * error. The question is still waiting: send the answer again.
 *
 * @remarks
 * The message names neither the URL nor the ids: together they are the run's capability, and error
 * messages end up in logs.
 *
 * @example
 * ```ts
 * import { AnswerNotSentError } from '@rxagents/react';
 *
 * const error = new AnswerNotSentError(new TypeError('Failed to fetch'));
 * console.log(error.code, error.retryable); // ANSWER_NOT_SENT true
 * ```
 */
export class AnswerNotSentError extends CoordinationError {
  constructor(cause?: unknown) {
    super('ANSWER_NOT_SENT', 'The answer did not reach the server (no response): the question is still waiting, send it again', { retryable: true, cause });
  }
}
