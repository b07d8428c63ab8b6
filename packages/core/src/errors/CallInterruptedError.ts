import { CoordinationError } from './CoordinationError';

/**
 * An agent call was still running when the process running its durable run stopped (a crash, a deploy).
 *
 * @remarks
 * When a durable run is resumed, every call its journal shows started but not ended is closed with this
 * error (a `call-error` event, and `run-end` for every nested run left open under it), so the journal
 * says what became of it. The call then runs again at the same place, as its next attempt, with the same
 * `ChatOptions.idempotencyKey`: retryable.
 *
 * @example
 * ```ts
 * import { CallInterruptedError } from '@rxagents/core';
 *
 * const error = new CallInterruptedError('support-42', 'run/1', 'billing');
 * console.log(error.code, error.retryable); // CALL_INTERRUPTED true
 * ```
 */
export class CallInterruptedError extends CoordinationError {
  /** The run the call belongs to. */
  readonly runId: string;
  /** The interrupted call's id (its place path, with its attempt). */
  readonly callId: string;
  /** The agent that was called. */
  readonly agentId: string;

  constructor(runId: string, callId: string, agentId: string) {
    super('CALL_INTERRUPTED', `Call "${callId}" to agent "${agentId}" in run "${runId}" was interrupted: the process running it stopped before it ended`, {
      retryable: true,
      context: { runId, callId, agentId },
    });
    this.runId = runId;
    this.callId = callId;
    this.agentId = agentId;
  }
}
