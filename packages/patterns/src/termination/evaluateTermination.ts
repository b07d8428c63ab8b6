import { first, from, Observable, type Subscription } from 'rxjs';
import { ConfigError } from '@rxagents/core';
import type { TerminationCondition } from './TerminationCondition';
import { CONTINUE, type TerminationDecision, type TerminationSnapshot } from './TerminationDecision';

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

export function composite<T>(kind: 'or' | 'and', conditions: readonly TerminationCondition<T>[]): TerminationCondition<T> {
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
  if (typeof (condition as Partial<TerminationCondition<T>> | null)?.evaluate !== 'function') {
    throw new ConfigError('evaluateTermination', [{ path: 'condition', rule: 'must be a TerminationCondition (with evaluate())', received: condition }]);
  }
  if (typeof snapshot !== 'object' || snapshot === null) {
    throw new ConfigError('evaluateTermination', [{ path: 'snapshot', rule: 'must be a snapshot ({ state, iteration, elapsedMs })', received: snapshot }]);
  }
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
              if (!laterDecision(answer)) throw notADecision(node, answer);
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
    `TerminationCondition "${condition.description}" gave ${value === undefined ? 'undefined' : JSON.stringify(value) ?? String(value)}; return a TerminationDecision (CONTINUE to go on, or { type: 'complete' | 'failed' | 'escalate', reason })`,
  );
}

/**
 * Whether an answer that is not a decision may be one that comes later (an `ObservableInput`): not a
 * missing value, not a primitive (a string would be read as one decision per character), and not a
 * decision look-alike (an object with a `type`).
 */
function laterDecision(answer: unknown): boolean {
  if (answer === undefined || answer === null) return false;
  if (typeof answer !== 'object' && typeof answer !== 'function') return false;
  return !('type' in answer);
}

const STOPS: ReadonlySet<unknown> = new Set(['complete', 'failed', 'escalate']);

/**
 * Whether `value` is a decision: `continue`, or a stop with its reason. A look-alike is not one: the
 * status word `escalated`, a `failure` or a misspelt `continue` would otherwise end the run as completed.
 */
function isDecision(value: unknown): value is TerminationDecision {
  if (typeof value !== 'object' || value === null) return false;
  const { type, reason } = value as { type?: unknown; reason?: unknown };
  return type === 'continue' || (STOPS.has(type) && typeof reason === 'string');
}

/**
 * The decision on `snapshot` when `condition` gives it at once (no Observable, no subscription), else
 * the Observable of {@link evaluateTermination} for it. `condition.evaluate` is called once either way;
 * what it throws is thrown here.
 */
export function decideNow<T>(condition: TerminationCondition<T>, snapshot: TerminationSnapshot<T>): TerminationDecision | Observable<TerminationDecision> {
  if (partsOf(condition) !== undefined) return evaluateTermination(condition, snapshot);
  const answer = condition.evaluate(snapshot);
  if (isDecision(answer)) return answer;
  if (!laterDecision(answer)) throw notADecision(condition, answer);
  // The answer comes later: evaluated as before, through a condition that hands over this answer.
  return evaluateTermination(
    {
      get description() {
        return condition.description;
      },
      evaluate: () => answer,
    },
    snapshot,
  );
}
