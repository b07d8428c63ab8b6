import { CoordinationError } from '@rxagents/core';

/**
 * A remote call streamed with `delivery: 'live'` restarted on another worker after some of its text was
 * already delivered, so its reply can no longer be whole.
 *
 * @remarks
 * Retryable: call again for a fresh, whole reply. With the default `delivery: 'attempt'` a restart never
 * fails the call (each attempt's text is held until the attempt ends).
 *
 * @example
 * ```ts
 * import { RemoteCallRestartedError } from '@rxagents/redis';
 *
 * const error = new RemoteCallRestartedError('writer', 2);
 * console.log(error.code, error.retryable); // REMOTE_CALL_RESTARTED true
 * ```
 */
export class RemoteCallRestartedError extends CoordinationError {
  /** The remote agent's id. */
  readonly agentId: string;
  /** The attempt that started after text had been delivered. */
  readonly attempt: number;

  constructor(agentId: string, attempt: number) {
    super('REMOTE_CALL_RESTARTED', `Remote agent "${agentId}": the call restarted (attempt ${attempt}) after part of its reply was delivered`, {
      retryable: true,
      context: { agentId, attempt },
    });
    this.agentId = agentId;
    this.attempt = attempt;
  }
}
