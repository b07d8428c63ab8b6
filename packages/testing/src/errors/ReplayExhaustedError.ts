import { CoordinationError } from '@rxagents/core';

/**
 * A replay agent was called more often than the journal recorded calls of its agent.
 *
 * @remarks
 * Code `REPLAY_EXHAUSTED`, not retryable. The call fails (through `stream`, an `AgentError` with this
 * error as its `cause`): the code under test made a call the recorded run did not make, so the replay
 * has no answer for it. An agent the journal never recorded has no calls to replay: its first call fails so.
 *
 * @example
 * ```ts
 * import { ReplayExhaustedError } from '@rxagents/testing';
 *
 * const error = new ReplayExhaustedError('writer', 3, 2);
 * console.log(error.code, error.message);
 * // REPLAY_EXHAUSTED Agent "writer" was called 3 times, but the journal records 2 calls of it
 * ```
 */
export class ReplayExhaustedError extends CoordinationError {
  constructor(
    /** The agent that was called once too often. */
    readonly agentId: string,
    /** Which call of that agent this was: 1 for the first. */
    readonly call: number,
    /** How many calls of that agent the journal records. */
    readonly recorded: number,
  ) {
    super('REPLAY_EXHAUSTED', `Agent "${agentId}" was called ${times(call)}, but the journal records ${calls(recorded)} of it`, {
      context: { agentId, call, recorded },
    });
  }
}

function times(count: number): string {
  return count === 1 ? 'once' : `${count} times`;
}

function calls(count: number): string {
  return count === 1 ? '1 call' : `${count} calls`;
}
