import { CoordinationError } from '@rxagents/core';

/**
 * An answer named a `runId` and `callId` that no {@link humanAgent} request is waiting for: it never
 * existed, was already answered, its call ended (cancelled or timed out), or it belongs to another run.
 * Not retryable: the request is gone. The message names neither id (it may be sent to a browser).
 *
 * @example
 * ```ts
 * import { InputRequestNotFoundError, humanAgent } from '@rxagents/web';
 *
 * const reviewer = humanAgent('reviewer');
 * try {
 *   reviewer.answer({ runId: '6b1d4a43-8f1e-4c55-9d0a-3c2f6f1e9a10', callId: 'no-such-request', text: 'Looks good' });
 * } catch (error) {
 *   if (error instanceof InputRequestNotFoundError) console.log(error.code); // INPUT_REQUEST_NOT_FOUND
 * }
 * ```
 */
export class InputRequestNotFoundError extends CoordinationError {
  constructor(
    /** The `runId` the answer named. */
    readonly runId: string | null,
    /** The `callId` the answer named. */
    readonly callId: string,
    /** The human agent's id. */
    readonly agentId: string,
  ) {
    super('INPUT_REQUEST_NOT_FOUND', `Agent "${agentId}" has no open input request with this runId and callId (unknown, answered, ended or of another run)`, {
      context: { agentId },
    });
  }
}
