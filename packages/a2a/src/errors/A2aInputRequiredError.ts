import { CoordinationError } from '@rxagents/core';

/**
 * A remote A2A agent asked for input (`input-required`, or `auth-required`) in a call that is not part of a run, so
 * nobody could be asked.
 *
 * @remarks
 * Call the agent with a run (`invoke$(agent, input, { run })` inside `observeRun`, or through a pattern or handoff
 * given a `run`): the question then becomes an interrupt of the run (`askForInput`), answered with
 * `answerInterrupt`, and the answer goes back to the task. Without one the call fails with this error; the remote
 * task is canceled.
 *
 * @example
 * ```ts
 * import { A2aInputRequiredError } from '@rxagents/a2a';
 *
 * const error = new A2aInputRequiredError('task-1', 'Which city?');
 * console.log(error.code, error.question); // A2A_INPUT_REQUIRED Which city?
 * ```
 */
export class A2aInputRequiredError extends CoordinationError {
  constructor(
    /** The remote task's id. */
    readonly taskId: string,
    /** What the remote agent asked. */
    readonly question: string,
  ) {
    super('A2A_INPUT_REQUIRED', `The A2A task ${taskId} needs input but the call is not part of a run: ${question}`, { context: { taskId } });
  }
}
