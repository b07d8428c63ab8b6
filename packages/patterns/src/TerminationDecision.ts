/**
 * What a {@link TerminationCondition} decides about a snapshot.
 *
 * @remarks
 * `continue` lets the run go on; `complete` ends it successfully; `failed` ends it as a failure (with an
 * optional `error`); `escalate` ends it and asks someone above (a supervisor, a human) to decide, as
 * when a judge never saw convergence. Each stop carries a `reason` that ends up in the result.
 *
 * @example
 * ```ts
 * import type { TerminationDecision } from '@rxagents/patterns';
 *
 * const stop: TerminationDecision = { type: 'complete', reason: 'the judge saw consensus' };
 * ```
 */
export type TerminationDecision =
  | { readonly type: 'continue' }
  | { readonly type: 'complete' | 'failed' | 'escalate'; readonly reason: string; readonly error?: unknown };

/** What a {@link TerminationCondition} evaluates: one consistent view of the run. */
export interface TerminationSnapshot<T> {
  /** The run's state (the driver's state, or the conversation's projection). */
  readonly state: T;
  /** Completed iterations: driver loops, or completed rounds of a conversation. */
  readonly iteration: number;
  /** Scheduler time since the run started, in ms. */
  readonly elapsedMs: number;
}

/** The one `continue` decision, shared. */
export const CONTINUE: TerminationDecision = Object.freeze({ type: 'continue' });
