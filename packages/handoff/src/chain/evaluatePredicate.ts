import { from, type Observable, type Subscription } from 'rxjs';
import { preview } from '@rxagents/core';
import { HandoffContractError } from '../errors/HandoffContractError';
import type { HandoffContext } from '../context/HandoffContext';
import type { HandoffPredicate } from './HandoffPredicate';

/**
 * Evaluates a predicate and calls `onAnswer` (synchronously for a boolean) or `onError`: with what the
 * predicate threw or errored with, or with a {@link HandoffContractError} when it answered (or resolved,
 * or emitted first) anything but a boolean. `culprit` names the predicate in that error. Never throws.
 * Returns the subscription to cancel when the answer comes later.
 */
export function evaluatePredicate(
  predicate: HandoffPredicate,
  context: HandoffContext,
  culprit: string,
  onAnswer: (answer: boolean) => void,
  onError: (error: unknown) => void,
): Subscription | undefined {
  let answer: unknown;
  try {
    answer = predicate(context);
  } catch (error) {
    onError(error);
    return undefined;
  }
  if (typeof answer === 'boolean') {
    onAnswer(answer);
    return undefined;
  }
  const notBoolean = (value: unknown): HandoffContractError =>
    new HandoffContractError(culprit, `answered ${preview(value)}; it must answer a boolean (or a Promise or Observable of one)`, value);
  let answer$: Observable<unknown>;
  try {
    // A string is iterable, but never a meant answer.
    if (typeof answer !== 'object' || answer === null) throw notBoolean(answer);
    answer$ = from(answer as Observable<unknown>);
  } catch {
    onError(notBoolean(answer));
    return undefined;
  }
  let answered = false;
  let subscription: Subscription | undefined;
  subscription = answer$.subscribe({
    next: (value) => {
      if (answered) return;
      answered = true;
      subscription?.unsubscribe();
      if (typeof value === 'boolean') onAnswer(value);
      else onError(notBoolean(value));
    },
    error: (error: unknown) => {
      if (answered) return;
      answered = true;
      onError(error);
    },
    complete: () => {
      if (answered) return;
      answered = true;
      onAnswer(false);
    },
  });
  if (answered) subscription.unsubscribe();
  return subscription;
}
