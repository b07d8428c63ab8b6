import { CoordinationError, type SerializedError } from '@rxagents/core';

/**
 * An error the server sent in an `event: error` frame (its run failed, it was cancelled, or the events
 * asked for are no longer kept), rebuilt on the client: the same `name`, `message`, `code` and
 * `retryable` as on the server (`code` is `REMOTE_ERROR` when the server's error had none).
 *
 * @example
 * ```ts
 * import { RemoteRunError } from '@rxagents/web/client';
 *
 * const error = new RemoteRunError({ name: 'AgentTimeoutError', message: 'too slow', code: 'AGENT_TIMEOUT', retryable: true });
 * console.log(error.name, error.code, error.retryable); // AgentTimeoutError AGENT_TIMEOUT true
 * ```
 */
export class RemoteRunError extends CoordinationError {
  constructor(error: SerializedError) {
    super(error.code ?? 'REMOTE_ERROR', error.message, { retryable: error.retryable ?? false, context: { remote: error } });
    this.name = error.name;
  }
}
