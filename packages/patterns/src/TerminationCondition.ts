import { concatMap, defer, first, from, isObservable, map, type Observable, type ObservableInput, of, takeWhile, toArray } from 'rxjs';
import { configRules, parseConfig } from '@rxagents/core';
import { conversationTerminations } from './conversationTerminations';
import { CONTINUE, type TerminationDecision, type TerminationSnapshot } from './TerminationDecision';

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

const Count = configRules.positiveInt();
const Millis = configRules.timeoutMs();

/**
 * Factories and combinators for {@link TerminationCondition}s.
 *
 * @remarks
 * `maxIterations`, `timeout`, `of`, `or` and `and` work on any state; `textMention`, `maxMessages` and
 * `judgeConvergence` read a `ConversationState`.
 */
export const TerminationCondition = {
  ...conversationTerminations,
  /**
   * A condition from your own function.
   *
   * @example
   * ```ts
   * import { TerminationCondition } from '@rxagents/patterns';
   *
   * const budget = TerminationCondition.of<{ cost: number }>('cost <= 10', ({ state }) =>
   *   state.cost > 10 ? { type: 'failed', reason: 'over budget' } : { type: 'continue' },
   * );
   * ```
   */
  of<T>(description: string, evaluate: TerminationCondition<T>['evaluate']): TerminationCondition<T> {
    return { description, evaluate };
  },

  /**
   * Completes once `max` iterations are done (driver loops, or completed conversation rounds).
   *
   * @example
   * ```ts
   * import { TerminationCondition } from '@rxagents/patterns';
   *
   * const fiveRounds = TerminationCondition.maxIterations(5);
   * ```
   */
  maxIterations<T>(max: number): TerminationCondition<T> {
    const limit = parseConfig(Count, max, 'maxIterations');
    return {
      description: `maxIterations(${limit})`,
      evaluate: ({ iteration }) => (iteration >= limit ? { type: 'complete', reason: `reached ${limit} iterations` } : CONTINUE),
    };
  },

  /**
   * Stops once `ms` of scheduler time have passed since the run started (checked between steps).
   *
   * @remarks
   * The decision is `complete` by default, as AutoGen's `TimeoutTermination`; pass `'failed'` or
   * `'escalate'` to treat running out of time as a failure. To cut a step that is in flight, use the
   * pattern's `timeout` option instead.
   *
   * @example
   * ```ts
   * import { TerminationCondition } from '@rxagents/patterns';
   *
   * const oneMinute = TerminationCondition.timeout(60_000, 'escalate');
   * ```
   */
  timeout<T>(ms: number, decision: 'complete' | 'failed' | 'escalate' = 'complete'): TerminationCondition<T> {
    const limit = parseConfig(Millis, ms, 'timeout');
    return {
      description: `timeout(${limit})`,
      evaluate: ({ elapsedMs }) => (elapsedMs >= limit ? { type: decision, reason: `${limit} ms elapsed` } : CONTINUE),
    };
  },

  /**
   * Stops with the first part (in declaration order) that stops; later parts are not evaluated.
   *
   * @example
   * ```ts
   * import { TerminationCondition } from '@rxagents/patterns';
   *
   * const stop = TerminationCondition.or(TerminationCondition.maxIterations(10), TerminationCondition.timeout(30_000));
   * ```
   */
  or<T>(...conditions: readonly TerminationCondition<T>[]): TerminationCondition<T> {
    return {
      description: conditions.map((c) => c.description).join(' | '),
      evaluate: (snapshot) =>
        from(conditions).pipe(
          concatMap((condition) => evaluateTermination(condition, snapshot)),
          first((decision) => decision.type !== 'continue', CONTINUE),
        ),
    };
  },

  /**
   * Stops only when every part stops on the same snapshot; evaluation stops at the first `continue`.
   *
   * @remarks
   * Not sticky: a part that held at an earlier step but not now does not count. The decision is the
   * most severe of the parts' (`failed` over `escalate` over `complete`), with their reasons joined.
   *
   * @example
   * ```ts
   * import { TerminationCondition, type ConversationState } from '@rxagents/patterns';
   *
   * const agreedLate = TerminationCondition.and<ConversationState>(
   *   TerminationCondition.textMention('AGREED'),
   *   TerminationCondition.maxIterations(3),
   * );
   * ```
   */
  and<T>(...conditions: readonly TerminationCondition<T>[]): TerminationCondition<T> {
    return {
      description: conditions.map((c) => c.description).join(' & '),
      evaluate: (snapshot) =>
        from(conditions).pipe(
          concatMap((condition) => evaluateTermination(condition, snapshot)),
          takeWhile((decision) => decision.type !== 'continue', true),
          toArray(),
          map((decisions) => combineAll(decisions, conditions.length)),
        ),
    };
  },
} as const;

const SEVERITY = { complete: 0, escalate: 1, failed: 2 } as const;

function combineAll(decisions: readonly TerminationDecision[], expected: number): TerminationDecision {
  const stops = decisions.flatMap((d) => (d.type === 'continue' ? [] : [d]));
  if (stops.length < expected || stops.length === 0) return CONTINUE;
  const worst = stops.reduce((a, b) => (SEVERITY[b.type] > SEVERITY[a.type] ? b : a));
  const error = stops.find((d) => d.error !== undefined)?.error;
  return { type: worst.type, reason: stops.map((d) => d.reason).join(' and '), ...(error === undefined ? {} : { error }) };
}

/**
 * Runs a condition on a snapshot as an Observable of exactly one decision (`continue` if it gave none).
 *
 * @example
 * ```ts
 * import { TerminationCondition, evaluateTermination } from '@rxagents/patterns';
 *
 * evaluateTermination(TerminationCondition.maxIterations(2), { state: null, iteration: 2, elapsedMs: 0 })
 *   .subscribe((decision) => console.log(decision.type)); // complete
 * ```
 */
export function evaluateTermination<T>(condition: TerminationCondition<T>, snapshot: TerminationSnapshot<T>): Observable<TerminationDecision> {
  return defer(() => {
    const decision = condition.evaluate(snapshot);
    if (isDecision(decision)) return of(decision);
    const source = isObservable(decision) ? decision : from(decision);
    return source.pipe(first(undefined, CONTINUE));
  });
}

function isDecision(value: unknown): value is TerminationDecision {
  return typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string';
}
