import { CoordinationError } from '@rxagents/core';

/**
 * The stream of a remote A2A agent's task dropped, and resubscribing (`SubscribeToTask`) failed as many times in a
 * row as the agent's `maxResubscribes` allows.
 *
 * @remarks
 * Retryable: the task may still be running on the remote side. `cause` is the last error.
 *
 * @example
 * ```ts
 * import { A2aStreamLostError } from '@rxagents/a2a';
 *
 * const error = new A2aStreamLostError('task-1', 3, new Error('socket hang up'));
 * console.log(error.code, error.retryable); // A2A_STREAM_LOST true
 * ```
 */
export class A2aStreamLostError extends CoordinationError {
  constructor(
    /** The remote task's id. */
    readonly taskId: string,
    /** How many resubscriptions were tried. */
    readonly attempts: number,
    cause: unknown,
  ) {
    super('A2A_STREAM_LOST', `The stream of the A2A task ${taskId} was lost after ${attempts} resubscriptions: ${cause instanceof Error ? cause.message : String(cause)}`, {
      retryable: true,
      cause,
      context: { taskId, attempts },
    });
  }
}
