import { CoordinationError, preview } from '@rxagents/core';

/**
 * User code called by a handoff broke its contract: a predicate or condition answered something other
 * than a boolean, or a {@link HandoffStrategy} completed without a result.
 *
 * @remarks
 * The usual cause is a forgotten `return false` (an answer of `undefined`). The handoff turns it into a
 * failure result carrying this error (a chain step, a route), or fails the call (a routing agent's
 * condition), instead of guessing what was meant. Not retryable: the code must be fixed.
 *
 * @example
 * ```ts
 * import { HandoffContractError } from '@rxagents/handoff';
 *
 * const error = new HandoffContractError('the predicate of step "writer"', 'answered undefined; it must answer a boolean', undefined);
 * console.log(error.code, error.message); // HANDOFF_CONTRACT the predicate of step "writer" answered undefined; it must answer a boolean
 * ```
 */
export class HandoffContractError extends CoordinationError {
  /** What broke the contract, for example `the predicate of step "writer"`. */
  readonly culprit: string;

  constructor(culprit: string, rule: string, received: unknown) {
    super('HANDOFF_CONTRACT', `${culprit} ${rule}`, { retryable: false, context: { culprit, received: preview(received) } });
    this.culprit = culprit;
  }
}
