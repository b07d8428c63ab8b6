import { CoordinationError } from '@rxagents/core';
import type { HandoffSides } from './HandoffDepthError';

/**
 * A person refused a handoff that needs approval (`needsApproval` on `handoff()`): the transfer did not happen.
 *
 * @remarks
 * Raised before the target is touched: the target never runs, `onHandoff` is not called and the run shows
 * no `handoff` event, only the approval `interrupt` and its answer. `reason` is the person's reason (or
 * `Not answered in time` when `approvalTimeout` passed). Not retryable: asking again asks the person
 * again. A routing agent fails its call with it (its model is asked once and never sees tool results, so
 * the refusal cannot be given back to it as the tool's result).
 *
 * @example
 * ```ts
 * import { HandoffRejectedError } from '@rxagents/handoff';
 *
 * const error = new HandoffRejectedError('transfer_to_refunds', 'Refunds are closed today', { sourceAgentId: 'desk', targetAgentId: 'refunds' });
 * console.log(error.code, error.reason); // HANDOFF_REJECTED Refunds are closed today
 * ```
 */
export class HandoffRejectedError extends CoordinationError {
  /** The handoff tool that was refused, for example `transfer_to_refunds`. */
  readonly toolName: string;
  /** Why, as the person said it; `undefined` when they gave no reason. */
  readonly reason: string | undefined;

  constructor(toolName: string, reason: string | undefined, sides: HandoffSides = {}) {
    const { sourceAgentId, targetAgentId } = sides;
    super('HANDOFF_REJECTED', `The handoff ${toolName} was refused${reason === undefined ? '' : `: ${reason}`}`, {
      retryable: false,
      context: {
        toolName,
        ...(reason === undefined ? {} : { reason }),
        ...(sourceAgentId === undefined ? {} : { source_agent: sourceAgentId }),
        ...(targetAgentId === undefined ? {} : { target_agent: targetAgentId }),
      },
    });
    this.toolName = toolName;
    this.reason = reason;
  }
}
