import { first, from, Observable, type ObservableInput, type Subscription } from 'rxjs';
import { configRules, parseConfig } from '@rxagents/core';
import { z } from 'zod';
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
const Stopping = z.enum(['complete', 'failed', 'escalate'], { error: 'must be "complete", "failed" or "escalate"' });
const OfArguments = z.strictObject({ description: configRules.id(), evaluate: configRules.function() });

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
    parseConfig(OfArguments, { description, evaluate }, 'TerminationCondition.of');
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
   * `ms` follows the rule of every timer-valued option: up to `MAX_DELAY_MS`, or `Infinity` (never).
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
    parseConfig(Stopping, decision, 'timeout decision');
    return {
      description: `timeout(${limit})`,
      evaluate: ({ elapsedMs }) => (elapsedMs >= limit ? { type: decision, reason: `${limit} ms elapsed` } : CONTINUE),
    };
  },

  /**
   * Stops with the first part (in declaration order) that stops; later parts are not evaluated.
   *
   * @remarks
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
  or<T>(...conditions: readonly TerminationCondition<T>[]): TerminationCondition<T> {
    return composite('or', conditions);
  },

  /**
   * Stops only when every part stops on the same snapshot; evaluation stops at the first `continue`.
   *
   * @remarks
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
  and<T>(...conditions: readonly TerminationCondition<T>[]): TerminationCondition<T> {
    return composite('and', conditions);
  },
} as const;

const SEVERITY = { complete: 0, escalate: 1, failed: 2 } as const;

type Stop = Exclude<TerminationDecision, { type: 'continue' }>;

/** The parts of an `or`/`and`, kept on the condition so that evaluation can walk the tree flat. */
const PARTS = Symbol('TerminationCondition.parts');

interface Composite<T> extends TerminationCondition<T> {
  readonly [PARTS]: { readonly kind: 'or' | 'and'; readonly conditions: readonly TerminationCondition<T>[] };
}

function partsOf<T>(condition: TerminationCondition<T>): Composite<T>[typeof PARTS] | undefined {
  return (condition as Partial<Composite<T>>)[PARTS];
}

function composite<T>(kind: 'or' | 'and', conditions: readonly TerminationCondition<T>[]): TerminationCondition<T> {
  const parts = { kind, conditions: [...conditions] } as const;
  let description: string | undefined;
  const condition: Composite<T> = {
    [PARTS]: parts,
    get description(): string {
      description ??= describe(condition);
      return description;
    },
    evaluate: (snapshot) => evaluateTermination(condition, snapshot),
  };
  return condition;
}

/** `a | b | c`; a nested group of the other kind in parentheses. Iterative: any depth. */
function describe<T>(root: TerminationCondition<T>): string {
  const out: string[] = [];
  // A work list of conditions to describe and literal pieces to write, processed last-in first-out.
  const work: (TerminationCondition<T> | { readonly text: string })[] = [root];
  while (work.length > 0) {
    const item = work.pop() as TerminationCondition<T> | { readonly text: string };
    if ('text' in item) {
      out.push(item.text);
      continue;
    }
    const parts = partsOf(item);
    if (parts === undefined) {
      out.push(item.description);
      continue;
    }
    const separator = parts.kind === 'or' ? ' | ' : ' & ';
    for (let i = parts.conditions.length - 1; i >= 0; i -= 1) {
      const part = parts.conditions[i] as TerminationCondition<T>;
      const inner = partsOf(part);
      const grouped = inner !== undefined && inner.kind !== parts.kind && inner.conditions.length > 1;
      if (grouped) work.push({ text: ')' });
      work.push(part);
      if (grouped) work.push({ text: '(' });
      if (i > 0) work.push({ text: separator });
    }
  }
  return out.join('');
}

function combineAll(stops: readonly Stop[]): TerminationDecision {
  if (stops.length === 0) return CONTINUE;
  const worst = stops.reduce((a, b) => (SEVERITY[b.type] > SEVERITY[a.type] ? b : a));
  const error = stops.find((d) => d.error !== undefined)?.error;
  return { type: worst.type, reason: stops.map((d) => d.reason).join(' and '), ...(error === undefined ? {} : { error }) };
}

/** One `or`/`and` being evaluated: which part is next, and (for `and`) the stops so far. */
interface Frame<T> {
  readonly kind: 'or' | 'and';
  readonly conditions: readonly TerminationCondition<T>[];
  index: number;
  readonly stops: Stop[];
}

/**
 * Runs a condition on a snapshot as an Observable of exactly one decision (`continue` if it gave none).
 *
 * @remarks
 * `or`/`and` trees are walked by one loop with an explicit stack, whatever their depth: a part that
 * decides at once costs no subscription, a part that answers later (a judge) is subscribed on its own
 * and the walk resumes where it was. A part that throws, or returns something that is not a decision
 * (a forgotten `return` gives `undefined`), errors the Observable.
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
  return new Observable<TerminationDecision>((subscriber) => {
    const stack: Frame<T>[] = [];
    let pending: Subscription | undefined;
    let next: TerminationCondition<T> | undefined = condition;
    let decided: TerminationDecision | undefined;

    /** Walks the tree until it is decided or waits for a later answer; returns false when waiting. */
    const walk = (): void => {
      for (;;) {
        if (next !== undefined) {
          const node: TerminationCondition<T> = next;
          next = undefined;
          const parts = partsOf(node);
          if (parts !== undefined) {
            if (parts.conditions.length === 0) decided = CONTINUE;
            else {
              stack.push({ kind: parts.kind, conditions: parts.conditions, index: 0, stops: [] });
              next = parts.conditions[0];
              continue;
            }
          } else {
            const answer = node.evaluate(snapshot);
            if (isDecision(answer)) decided = answer;
            else {
              if (answer === undefined || answer === null) throw notADecision(node, answer);
              let arrived: TerminationDecision | undefined;
              let waiting = false;
              pending = from(answer)
                .pipe(first(undefined, CONTINUE as TerminationDecision))
                .subscribe({
                  next: (value) => {
                    if (!isDecision(value)) {
                      subscriber.error(notADecision(node, value));
                      return;
                    }
                    arrived = value;
                    if (waiting) {
                      decided = arrived;
                      resume();
                    }
                  },
                  error: (error: unknown) => subscriber.error(error),
                });
              if (arrived === undefined) {
                waiting = true;
                return;
              }
              decided = arrived;
            }
          }
        }
        const decision = decided as TerminationDecision;
        decided = undefined;
        const frame = stack[stack.length - 1];
        if (frame === undefined) {
          subscriber.next(decision);
          subscriber.complete();
          return;
        }
        if (frame.kind === 'or') {
          if (decision.type !== 'continue') {
            stack.pop();
            decided = decision;
            continue;
          }
        } else {
          if (decision.type === 'continue') {
            stack.pop();
            decided = CONTINUE;
            continue;
          }
          frame.stops.push(decision);
        }
        frame.index += 1;
        if (frame.index < frame.conditions.length) next = frame.conditions[frame.index];
        else {
          stack.pop();
          decided = frame.kind === 'or' ? CONTINUE : combineAll(frame.stops);
        }
      }
    };

    const resume = (): void => {
      if (subscriber.closed) return;
      try {
        walk();
      } catch (error: unknown) {
        subscriber.error(error);
      }
    };

    resume();
    return () => pending?.unsubscribe();
  });
}

function notADecision<T>(condition: TerminationCondition<T>, value: unknown): TypeError {
  return new TypeError(
    `TerminationCondition "${condition.description}" gave ${value === undefined ? 'undefined' : JSON.stringify(value) ?? String(value)}; return a TerminationDecision (CONTINUE to go on)`,
  );
}

function isDecision(value: unknown): value is TerminationDecision {
  return typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string';
}
