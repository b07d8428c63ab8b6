import { from, type ObservableInput, type Subscription } from 'rxjs';
import type { HandoffContext } from '../HandoffContext';
import type { HandoffPredicate } from '../HandoffPredicate';

/**
 * Evaluates a predicate and calls `onAnswer` (synchronously for a boolean) or `onError`.
 * Returns the subscription to cancel when the answer comes later.
 */
export function evaluatePredicate(
  predicate: HandoffPredicate,
  context: HandoffContext,
  onAnswer: (answer: boolean) => void,
  onError: (error: unknown) => void,
): Subscription | undefined {
  let answer: boolean | ObservableInput<boolean>;
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
  let answered = false;
  let subscription: Subscription | undefined;
  subscription = from(answer).subscribe({
    next: (value) => {
      if (answered) return;
      answered = true;
      subscription?.unsubscribe();
      onAnswer(value === true);
    },
    error: (error: unknown) => {
      if (!answered) onError(error);
    },
    complete: () => {
      if (!answered) {
        answered = true;
        onAnswer(false);
      }
    },
  });
  if (answered) subscription.unsubscribe();
  return subscription;
}
