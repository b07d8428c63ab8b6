import { CoordinationError } from '@rxagents/core';

/**
 * Where a {@link HandoffTimeoutError} happened and how its limit was configured.
 *
 * @example
 * ```ts
 * import type { HandoffTimeoutDetails } from '@rxagents/handoff';
 *
 * const details: HandoffTimeoutDetails = { sourceAgentId: 'triage', unit: 's' };
 * ```
 */
export interface HandoffTimeoutDetails {
  /** The agent that handed off. */
  readonly sourceAgentId?: string;
  /** The unit the limit was configured in: `'s'` for `timeoutSeconds`, `'ms'` (the default) for `timeout`. */
  readonly unit?: 'ms' | 's';
}

/**
 * A handoff's target did not finish within its `timeout`.
 *
 * @remarks
 * Raised by {@link Handoff.execute}; the target's `AbortSignal` is aborted. The message names both sides
 * and says the limit in the unit it was configured in (`timeoutSeconds: 0.02` reads "after 0.02s",
 * `timeout: 20` "after 20 ms"); `context` carries `source_agent`, `target_agent`, `timeout_ms` and
 * `timeout_seconds`, as PraisonAI's error does. The target's own `AgentTimeoutError` is the `cause`.
 * Always retryable (`isRetryable === true`): a second attempt may succeed.
 *
 * @example
 * ```ts
 * import { HandoffTimeoutError } from '@rxagents/handoff';
 *
 * const error = new HandoffTimeoutError('billing', 30_000, undefined, { sourceAgentId: 'triage', unit: 's' });
 * console.log(error.message); // Handoff from "triage" to "billing" timed out after 30s
 * console.log(error.isRetryable, error.timeoutMs, error.timeoutSeconds, error.context?.source_agent); // true 30000 30 triage
 * ```
 */
export class HandoffTimeoutError extends CoordinationError {
  /** The target that timed out. */
  readonly agentId: string;
  /** The agent that handed off, when known. */
  readonly sourceAgentId: string | undefined;
  /** The limit that passed, in ms. */
  readonly timeoutMs: number;

  constructor(agentId: string, timeoutMs: number, cause?: unknown, details: HandoffTimeoutDetails = {}) {
    const { sourceAgentId, unit = 'ms' } = details;
    const limit = unit === 's' ? `${timeoutMs / 1000}s` : `${timeoutMs} ms`;
    const sides = sourceAgentId === undefined ? `to "${agentId}"` : `from "${sourceAgentId}" to "${agentId}"`;
    super('HANDOFF_TIMEOUT', `Handoff ${sides} timed out after ${limit}`, {
      retryable: true,
      context: { agentId, ...(sourceAgentId === undefined ? {} : { source_agent: sourceAgentId }), target_agent: agentId, timeout_ms: timeoutMs, timeout_seconds: timeoutMs / 1000 },
      cause,
    });
    this.agentId = agentId;
    this.sourceAgentId = sourceAgentId;
    this.timeoutMs = timeoutMs;
  }

  /** The limit that passed, in seconds (`timeoutMs / 1000`). */
  get timeoutSeconds(): number {
    return this.timeoutMs / 1000;
  }
}
