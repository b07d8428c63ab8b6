import { AgentError } from '../../errors/AgentError';
import { AgentTimeoutError } from '../../errors/AgentTimeoutError';
import type { SerializedError } from '../../events/SerializedError';

/**
 * The failure of a replayed call, rebuilt from its record: an `AgentError` (an `AgentTimeoutError` for a
 * timeout, as a live call fails) whose name, code, message and `retryable` are the recorded ones, so
 * whatever the caller makes of it (a handoff's failure, a run-end) reads as it did.
 */
export function rebuildCallError(agentId: string, recorded: SerializedError | undefined): Error {
  const name = recorded?.name ?? 'AgentError';
  const message = recorded?.message ?? `Agent "${agentId}" failed`;
  const cause = new Error(message);
  cause.name = name;
  const error = recorded?.code === 'AGENT_TIMEOUT' ? new AgentTimeoutError(agentId, timeoutOf(message)) : new AgentError(agentId, cause, recorded?.retryable === undefined ? {} : { retryable: recorded.retryable });
  Object.defineProperty(error, 'message', { value: message, writable: true, configurable: true, enumerable: false });
  Object.defineProperty(error, 'name', { value: name, writable: true, configurable: true, enumerable: false });
  if (recorded?.code !== undefined) Object.defineProperty(error, 'code', { value: recorded.code, writable: false, configurable: true, enumerable: true });
  if (recorded?.retryable !== undefined) Object.defineProperty(error, 'retryable', { value: recorded.retryable, writable: false, configurable: true, enumerable: true });
  return error;
}

function timeoutOf(message: string): number {
  const match = /within (\d+) ms/.exec(message);
  return match === null ? 0 : Number(match[1]);
}
