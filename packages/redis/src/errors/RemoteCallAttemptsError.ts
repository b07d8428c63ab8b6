import { CoordinationError } from '@rxagents/core';

/**
 * A remote call was started `attempts` times and no attempt finished: its workers kept dying (or
 * stalling past `claimIdleMs`) while running it.
 *
 * @remarks
 * Retryable: the failures were the workers', not the input's, so calling again (with fresh workers)
 * may well succeed. `maxAttempts` of {@link RemoteAgentOptions} sets the limit.
 *
 * @example
 * ```ts
 * import { RemoteCallAttemptsError } from '@rxagents/redis';
 *
 * const error = new RemoteCallAttemptsError('writer', 3);
 * console.log(error.code, error.retryable); // REMOTE_CALL_ATTEMPTS_EXHAUSTED true
 * ```
 */
export class RemoteCallAttemptsError extends CoordinationError {
  /** The remote agent's id. */
  readonly agentId: string;
  /** How many attempts were started. */
  readonly attempts: number;

  constructor(agentId: string, attempts: number) {
    super('REMOTE_CALL_ATTEMPTS_EXHAUSTED', `Remote agent "${agentId}": the call was started ${attempts} times and no attempt finished (its workers died)`, {
      retryable: true,
      context: { agentId, attempts },
    });
    this.agentId = agentId;
    this.attempts = attempts;
  }
}
