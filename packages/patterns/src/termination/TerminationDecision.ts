import type { RunContext } from '@rxagents/core';

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

/**
 * What a {@link TerminationCondition} evaluates: one consistent view of the run.
 *
 * @example
 * ```ts
 * import { ConversationState, TerminationCondition, evaluateTermination, type TerminationSnapshot } from '@rxagents/patterns';
 *
 * // Check a condition on a hand-made snapshot, as a unit test would.
 * const snapshot: TerminationSnapshot<ConversationState> = { state: ConversationState.initial('t', ['a']), iteration: 0, elapsedMs: 1_500 };
 * evaluateTermination(TerminationCondition.timeout(1_000), snapshot).subscribe((decision) => console.log(decision.type)); // complete
 * ```
 */
export interface TerminationSnapshot<T> {
  /** The run's state (the driver's state, or the conversation's projection). */
  readonly state: T;
  /** Completed iterations: driver loops, or completed rounds of a conversation. */
  readonly iteration: number;
  /** Scheduler time since the run started, in ms. */
  readonly elapsedMs: number;
  /**
   * The run to report into when somebody watches it (a pattern's `events$`): a condition that calls an
   * agent (a judge) passes it on as the call's `{ run }`, so the call appears in the run's events.
   */
  readonly run?: RunContext | undefined;
}

/**
 * The one `continue` decision, shared.
 *
 * @remarks
 * Frozen; return it from a condition rather than allocating `{ type: 'continue' }` on every step.
 *
 * @example
 * ```ts
 * import { CONTINUE, TerminationCondition } from '@rxagents/patterns';
 *
 * const underBudget = TerminationCondition.of<{ spent: number }>('spent <= 5', ({ state }) =>
 *   state.spent > 5 ? { type: 'escalate', reason: `spent ${state.spent}` } : CONTINUE,
 * );
 * ```
 */
export const CONTINUE: TerminationDecision = Object.freeze({ type: 'continue' });
