import { APICallError, RetryError } from 'ai';

/** @internal What a provider error says about itself: its HTTP status and whether a retry may succeed. */
export interface ProviderFailure {
  readonly status: number | undefined;
  readonly retryable: boolean;
}

/**
 * @internal Reads the status and retryability of an AI SDK error.
 *
 * @remarks
 * A `RetryError` (the SDK gave up after `maxRetries`) is judged by its last error. An `APICallError`
 * with a status is retryable for 429 and 5xx; one without a status (the request never got an answer:
 * connection refused, reset) keeps the SDK's own `isRetryable`. A `TimeoutError` (the SDK's `timeout`
 * setting passed) is retryable, like core's `AgentTimeoutError`. Anything else is not retryable.
 */
export function providerFailure(error: unknown): ProviderFailure {
  const last = RetryError.isInstance(error) ? error.lastError : error;
  if (last instanceof Error && last.name === 'TimeoutError') return { status: undefined, retryable: true };
  if (!APICallError.isInstance(last)) return { status: undefined, retryable: false };
  const status = last.statusCode;
  if (status === undefined) return { status, retryable: last.isRetryable };
  return { status, retryable: status === 429 || status >= 500 };
}
