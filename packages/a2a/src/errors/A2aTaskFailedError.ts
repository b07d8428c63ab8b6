import { CoordinationError } from '@rxagents/core';

/**
 * A remote A2A agent's task ended without completing: `failed`, `rejected`, or `canceled` by the remote side.
 *
 * @remarks
 * Raised by an {@link a2aAgent}'s call (wrapped, like every agent failure, in an `AgentError` by `invoke`/`stream`,
 * with this error as its `cause`). `state` is the task's final state in lower case, `taskId` the remote task, and the
 * message is the text of the task's final status message, when it had one.
 *
 * @example
 * ```ts
 * import { A2aTaskFailedError } from '@rxagents/a2a';
 *
 * const error = new A2aTaskFailedError('task-1', 'failed', 'out of ink');
 * console.log(error.code, error.message); // A2A_TASK_FAILED The A2A task task-1 ended failed: out of ink
 * ```
 */
export class A2aTaskFailedError extends CoordinationError {
  constructor(
    /** The remote task's id. */
    readonly taskId: string,
    /** The task's final state: `failed`, `rejected` or `canceled`. */
    readonly state: string,
    /** The text of the task's final status message ('' when it had none). */
    readonly reason: string,
  ) {
    super('A2A_TASK_FAILED', `The A2A task ${taskId} ended ${state}${reason === '' ? '' : `: ${reason}`}`, { context: { taskId, state } });
  }
}
