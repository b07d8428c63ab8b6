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
 * connection refused, reset) keeps the SDK's own `isRetryable`. The AI Gateway (a model given by id
 * string) raises its own errors, not `APICallError`s; each carries the HTTP status it got and is judged
 * the same way. A `TimeoutError` (the SDK's `timeout` setting passed) or the gateway's client-side
 * timeout is retryable, like core's `AgentTimeoutError`. Anything else is not retryable.
 */
export function providerFailure(error: unknown): ProviderFailure {
  const last = RetryError.isInstance(error) ? error.lastError : error;
  if (last instanceof Error && (last.name === 'TimeoutError' || last.name === 'GatewayTimeoutError')) return { status: undefined, retryable: true };
  if (APICallError.isInstance(last)) return last.statusCode === undefined ? { status: undefined, retryable: last.isRetryable } : byStatus(last.statusCode);
  const status = gatewayStatus(last);
  return status === undefined ? { status, retryable: false } : byStatus(status);
}

function byStatus(status: number): ProviderFailure {
  return { status, retryable: status === 429 || status >= 500 };
}

// The marker `GatewayError.isInstance` checks (a global symbol, so it holds across copies of the
// package); `ai` does not re-export the class, and this package does not depend on `@ai-sdk/gateway`.
const GATEWAY_ERROR = Symbol.for('vercel.ai.gateway.error');

function gatewayStatus(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null || (error as Record<symbol, unknown>)[GATEWAY_ERROR] !== true) return undefined;
  const { statusCode } = error as { statusCode?: unknown };
  return typeof statusCode === 'number' ? statusCode : undefined;
}
