import { CoordinationError } from '@rxagents/core';

/**
 * A handoff would revisit an agent already in its chain (A -> B -> A).
 *
 * @remarks
 * Raised by {@link Handoff.execute} when `detectCycles` is on (the default), before the chain is
 * extended and before the target is touched. `context.cycle_path` is the chain plus the refused target.
 * Not retryable: the same chain fails again.
 *
 * @example
 * ```ts
 * import { HandoffCycleError } from '@rxagents/handoff';
 *
 * const error = new HandoffCycleError(['triage', 'billing', 'triage']);
 * console.log(error.message, error.context?.cycle_path);
 * ```
 */
export class HandoffCycleError extends CoordinationError {
  /** The chain that would loop, ending with the refused target. */
  readonly cyclePath: readonly string[];

  constructor(cyclePath: readonly string[]) {
    super('HANDOFF_CYCLE', `Handoff cycle detected: ${cyclePath.join(' -> ')}`, {
      retryable: false,
      context: { cycle_path: [...cyclePath] },
    });
    this.cyclePath = Object.freeze([...cyclePath]);
  }
}
