import { ConfigError } from '@rxagents/core';

/**
 * Refuses a direct `chat` call the `Agent` contract does not allow: an input that is not a string, or
 * options without a `signal` (`stream`, `invoke` and `callAgent` always pass both). Cheap checks on the
 * fast path, and `in` rather than a read: the signal of an agent call is made only when an agent reads it.
 * The error names the agent and the argument.
 *
 * @internal
 */
export function checkChatCall(agentId: string, input: unknown, options: unknown): void {
  if (typeof input === 'string' && typeof options === 'object' && options !== null && 'signal' in options) return;
  if (typeof input !== 'string') throw new ConfigError(`${agentId}.chat`, [{ path: 'input', rule: 'must be a string', received: input }]);
  throw new ConfigError(`${agentId}.chat`, [
    { path: 'options', rule: 'must be ChatOptions with an AbortSignal as signal (call agents through stream, invoke or callAgent)', received: options },
  ]);
}
