import { CoordinationError, preview } from '@rxagents/core';

/**
 * A tool-calling model's provider call failed (see `aiSdkToolCallingModel`).
 *
 * @remarks
 * A `ToolCallingModel` belongs to no agent, so its failures cannot be an `AgentError`; this error
 * carries the same facts: the provider's HTTP `status` when known, and `retryable` for 429 and 5xx. The
 * original AI SDK error is the `cause`. A routing agent that wraps it in an `AgentError` inherits
 * `retryable` from it.
 *
 * @example
 * ```ts
 * import { ModelCallError } from '@rxagents/ai-sdk';
 *
 * const error = new ModelCallError(new Error('Service Unavailable'), { status: 503, retryable: true });
 * console.log(error.code, error.status, error.retryable); // MODEL_CALL_FAILED 503 true
 * ```
 */
export class ModelCallError extends CoordinationError {
  /** The provider's HTTP status, when the failure came with one. */
  readonly status: number | undefined;

  constructor(cause: unknown, options: { readonly status?: number; readonly retryable?: boolean } = {}) {
    // `preview`, not String(): a short message for any cause, even one with no prototype or a huge one.
    super('MODEL_CALL_FAILED', `Model call failed: ${cause instanceof Error ? cause.message : preview(cause)}`, {
      cause,
      retryable: options.retryable ?? false,
      ...(options.status === undefined ? {} : { context: { status: options.status } }),
    });
    this.status = options.status;
  }
}
