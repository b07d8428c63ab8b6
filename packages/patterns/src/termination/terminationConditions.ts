import { configRules, parseConfig } from '@rxagents/core';
import { z } from 'zod';
import { composite } from './evaluateTermination';
import type { TerminationCondition } from './TerminationCondition';
import { CONTINUE } from './TerminationDecision';

// The factories and combinators of TerminationConditions, exported from the package as the module
// namespace `TerminationCondition`. `maxIterations`, `timeout`, `of`, `or` and `and` work on any state;
// `textMention`, `maxMessages` and `judgeConvergence` read a ConversationState.

export { judgeConvergence, maxMessages, textMention } from './conversationTerminations';

const Count = configRules.positiveInt();
const Millis = configRules.timeoutMs();
const Stopping = z.enum(['complete', 'failed', 'escalate'], { error: 'must be "complete", "failed" or "escalate"' });
const OfArguments = z.strictObject({ description: configRules.id(), evaluate: configRules.function() });
const Parts = z
  .array(
    z.custom<TerminationCondition<unknown>>((value) => typeof (value as Partial<TerminationCondition<unknown>> | null | undefined)?.evaluate === 'function', {
      error: 'must be a TerminationCondition (with evaluate())',
    }),
  )
  .min(1, 'must combine at least one condition');

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
export function of<T>(description: string, evaluate: TerminationCondition<T>['evaluate']): TerminationCondition<T> {
  parseConfig(OfArguments, { description, evaluate }, 'TerminationCondition.of');
  return { description, evaluate };
}

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
export function maxIterations<T>(max: number): TerminationCondition<T> {
  const limit = parseConfig(Count, max, 'maxIterations');
  return {
    description: `maxIterations(${limit})`,
    evaluate: ({ iteration }) => (iteration >= limit ? { type: 'complete', reason: `reached ${limit} iterations` } : CONTINUE),
  };
}

/**
 * Stops once `ms` of scheduler time have passed since the run started (checked between steps).
 *
 * @remarks
 * The decision is `complete` by default, as AutoGen's `TimeoutTermination`; pass `'failed'` or
 * `'escalate'` to treat running out of time as a failure. To cut a step that is in flight, use the
 * pattern's `timeout` option instead.
 * `ms` follows the rule of every timer-valued option: up to `MAX_DELAY_MS`, or `Infinity` (never).
 *
 * @example
 * ```ts
 * import { TerminationCondition } from '@rxagents/patterns';
 *
 * const oneMinute = TerminationCondition.timeout(60_000, 'escalate');
 * ```
 */
export function timeout<T>(ms: number, decision: 'complete' | 'failed' | 'escalate' = 'complete'): TerminationCondition<T> {
  const limit = parseConfig(Millis, ms, 'timeout');
  parseConfig(Stopping, decision, 'timeout decision');
  return {
    description: `timeout(${limit})`,
    evaluate: ({ elapsedMs }) => (elapsedMs >= limit ? { type: decision, reason: `${limit} ms elapsed` } : CONTINUE),
  };
}

/**
 * Stops with the first part (in declaration order) that stops; later parts are not evaluated.
 *
 * @remarks
 * Takes at least one condition; no part, or a part that is not a condition, is a `ConfigError` at once.
 * Nest as deep as you like (`reduce` over thousands of stop words, say): a composed condition is
 * evaluated by one flat loop over its parts, never by subscriptions nested inside each other.
 *
 * @example
 * ```ts
 * import { TerminationCondition } from '@rxagents/patterns';
 *
 * const stop = TerminationCondition.or(TerminationCondition.maxIterations(10), TerminationCondition.timeout(30_000));
 * ```
 */
export function or<T>(...conditions: readonly TerminationCondition<T>[]): TerminationCondition<T> {
  parseConfig(Parts, conditions, 'TerminationCondition.or');
  return composite('or', conditions);
}

/**
 * Stops only when every part stops on the same snapshot; evaluation stops at the first `continue`.
 *
 * @remarks
 * Takes at least one condition; no part, or a part that is not a condition, is a `ConfigError` at once.
 * Not sticky: a part that held at an earlier step but not now does not count. The decision is the
 * most severe of the parts' (`failed` over `escalate` over `complete`), with their reasons joined.
 * Nests as deep as `or` does.
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
export function and<T>(...conditions: readonly TerminationCondition<T>[]): TerminationCondition<T> {
  parseConfig(Parts, conditions, 'TerminationCondition.and');
  return composite('and', conditions);
}
