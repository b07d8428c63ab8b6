import { CoordinationError } from '@rxagents/core';

/**
 * A handoff would revisit an agent already in its chain (A -> B -> A).
 *
 * @remarks
 * Raised by {@link Handoff.execute} when `detectCycles` is on (the default), before the chain is
 * extended and before the target is touched. `context.cycle_path` is the chain plus the refused target;
 * `context.source_agent` and `context.target_agent` are the two sides of the refused handoff (the last two
 * ids of the path). Not retryable: the same chain fails again.
 *
 * @example
 * ```ts
 * import { HandoffCycleError } from '@rxagents/handoff';
 *
 * const error = new HandoffCycleError(['triage', 'billing', 'triage']);
 * console.log(error.message, error.context?.source_agent, error.context?.target_agent); // Handoff cycle detected: triage -> billing -> triage billing triage
 * ```
 */
export class HandoffCycleError extends CoordinationError {
  /** The chain that would loop, ending with the refused target. */
  readonly cyclePath: readonly string[];
  /** The agent that handed off (the id before the target in the path). */
  readonly sourceAgentId: string | undefined;
  /** The refused target (the path's last id). */
  readonly targetAgentId: string | undefined;

  constructor(cyclePath: readonly string[]) {
    const targetAgentId = cyclePath.at(-1);
    const sourceAgentId = cyclePath.length > 1 ? cyclePath.at(-2) : undefined;
    super('HANDOFF_CYCLE', `Handoff cycle detected: ${cyclePath.join(' -> ')}`, {
      retryable: false,
      context: { cycle_path: [...cyclePath], source_agent: sourceAgentId, target_agent: targetAgentId },
    });
    this.cyclePath = Object.freeze([...cyclePath]);
    this.sourceAgentId = sourceAgentId;
    this.targetAgentId = targetAgentId;
  }
}
