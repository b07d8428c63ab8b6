import type { ObservableInput } from 'rxjs';
import type { TerminationDecision, TerminationSnapshot } from './TerminationDecision';

/**
 * Decides, from one snapshot of a run, whether it goes on.
 *
 * @remarks
 * `evaluate` returns a decision at once or an `ObservableInput` of one (a judge agent answers later);
 * the run waits for it, and unsubscribing from the run cancels it. Conditions are evaluated between
 * steps (after each driver iteration, after each conversation turn), never while an agent is speaking:
 * to interrupt a slow agent use the pattern's `agentTimeout` or `timeout`. Combine conditions with
 * {@link TerminationCondition.or} and {@link TerminationCondition.and}; both look at the same snapshot,
 * so, unlike AutoGen's sticky `&`, an `and` only stops when every part holds *at the same time*.
 *
 * @example
 * ```ts
 * import { TerminationCondition, type ConversationState } from '@rxagents/patterns';
 *
 * const stop = TerminationCondition.or<ConversationState>(
 *   TerminationCondition.textMention('TERMINATE'),
 *   TerminationCondition.maxMessages(20),
 * );
 * ```
 */
export interface TerminationCondition<T> {
  /** Says what the condition checks, e.g. `maxIterations(5)`. */
  readonly description: string;
  /** Decides on a snapshot: a decision now, or later. */
  evaluate(snapshot: TerminationSnapshot<T>): TerminationDecision | ObservableInput<TerminationDecision>;
}
