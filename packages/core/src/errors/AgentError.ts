import { preview } from '../preview';
import { CoordinationError } from './CoordinationError';

/**
 * Options for {@link AgentError}.
 *
 * @remarks
 * Useful when an agent wraps a provider failure itself: it can pass the HTTP status and say whether
 * a retry may help. {@link stream} passes such an `AgentError` through unchanged.
 *
 * @example
 * ```ts
 * import { AgentError, defineAgent, type AgentErrorOptions } from '@rxagents/core';
 *
 * const agent = defineAgent('llm', async () => {
 *   const options: AgentErrorOptions = { status: 503, retryable: true, context: { provider: 'local' } };
 *   throw new AgentError('llm', new Error('service unavailable'), options);
 * });
 * ```
 */
export interface AgentErrorOptions {
  /** Overrides the retryable flag; by default it is taken from a retryable `cause`. */
  readonly retryable?: boolean;
  /** A provider status code (for example an HTTP status), when the failure came from one. */
  readonly status?: number;
  /** Extra structured facts. */
  readonly context?: Readonly<Record<string, unknown>>;
}

/**
 * An agent threw, rejected or errored while answering.
 *
 * @remarks
 * {@link stream} wraps anything an agent's `chat` throws or errors with in an `AgentError` that names
 * the agent, keeping the original error as `cause`. It is retryable when the cause says so (a
 * {@link CoordinationError} that is retryable, or an explicit `retryable` option).
 *
 * @example
 * ```ts
 * import { AgentError } from '@rxagents/core';
 *
 * const error = new AgentError('billing', new Error('rate limited'), { status: 429, retryable: true });
 * console.log(error.message); // Agent "billing" failed: rate limited
 * ```
 */
export class AgentError extends CoordinationError {
  /** The id of the agent that failed. */
  readonly agentId: string;
  /** The provider status code, when known. */
  readonly status: number | undefined;

  constructor(agentId: string, cause: unknown, options: AgentErrorOptions = {}) {
    super('AGENT_ERROR', `Agent "${agentId}" failed: ${describeCause(cause)}`, {
      cause,
      retryable: options.retryable ?? (cause instanceof CoordinationError && cause.retryable),
      context: { agentId, ...(options.status === undefined ? {} : { status: options.status }), ...options.context },
    });
    this.agentId = agentId;
    this.status = options.status;
  }
}

/** Longest cause text in a message; the cause itself stays whole on `error.cause`. */
const MAX_CAUSE_LENGTH = 1_000;

// Never throws: a cause with no prototype or a BigInt inside would make String()/JSON.stringify throw.
function describeCause(cause: unknown): string {
  let text: string;
  if (cause instanceof Error) text = String(cause.message);
  else if (typeof cause === 'string') text = cause;
  else text = preview(cause);
  return text.length > MAX_CAUSE_LENGTH ? `${text.slice(0, MAX_CAUSE_LENGTH - 3)}...` : text;
}
