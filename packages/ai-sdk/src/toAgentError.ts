import { AgentError } from '@rxagents/core';
import { providerFailure } from './providerFailure';

/**
 * Wraps an AI SDK error in an {@link AgentError} carrying the provider's HTTP status and retryability.
 *
 * @remarks
 * `aiSdkAgent` uses it for every failure of a reply. An `APICallError` or an AI Gateway error (or a
 * `RetryError` whose last attempt was one) gives `status`; the error is `retryable` for 429 and 5xx, for
 * a timeout, and for a request that got no answer at all when the SDK itself calls that retryable. A 4xx
 * other than 429, an invalid prompt or any other error is not retryable. The original error is kept as `cause`; an `AgentError` about the same agent
 * passes through unchanged.
 *
 * @param agentId - The agent that failed.
 * @param error - What the AI SDK threw or streamed.
 * @returns The error to deliver.
 *
 * @example
 * ```ts
 * import { defineAgent } from '@rxagents/core';
 * import { toAgentError } from '@rxagents/ai-sdk';
 *
 * // Your own agent around an SDK call (generateText, a provider client, ...): report failures with status.
 * declare function callModel(input: string, signal: AbortSignal): Promise<string>;
 *
 * const summarizer = defineAgent('summarizer', (input, { signal }) =>
 *   callModel(input, signal).catch((error: unknown) => {
 *     throw toAgentError('summarizer', error); // an HTTP 429 or 5xx is retryable, a 400 is not
 *   }),
 * );
 * ```
 */
export function toAgentError(agentId: string, error: unknown): AgentError {
  if (error instanceof AgentError && error.agentId === agentId) return error;
  const { status, retryable } = providerFailure(error);
  return new AgentError(agentId, error, { retryable, ...(status === undefined ? {} : { status }) });
}
