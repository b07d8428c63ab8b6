import { CoordinationError } from '@rxagents/core';

/**
 * An answer named a `callId` that no {@link humanAgent} request is waiting for: it never existed, was
 * already answered, or its call ended (cancelled or timed out). Not retryable: the request is gone.
 *
 * @example
 * ```ts
 * import { InputRequestNotFoundError, humanAgent } from '@rxagents/web';
 *
 * const reviewer = humanAgent('reviewer');
 * try {
 *   reviewer.answer('no-such-request', 'Looks good');
 * } catch (error) {
 *   if (error instanceof InputRequestNotFoundError) console.log(error.code); // INPUT_REQUEST_NOT_FOUND
 * }
 * ```
 */
export class InputRequestNotFoundError extends CoordinationError {
  constructor(
    /** The `callId` the answer named. */
    readonly callId: string,
    /** The human agent's id. */
    readonly agentId: string,
  ) {
    super('INPUT_REQUEST_NOT_FOUND', `Agent "${agentId}" has no open input request with this callId (unknown, answered or ended)`, {
      context: { agentId },
    });
  }
}
