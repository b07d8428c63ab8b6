import { CoordinationError } from '@rxagents/core';
import type { HandoffSides } from './HandoffDepthError';

/**
 * A handoff that needs a person's approval was run where nobody can be asked: it has no run.
 *
 * @remarks
 * The approval is asked with core's `askForApproval` in the handoff's run: `events$`, `execute$(source,
 * request, { run })`, or a routing agent called inside a run (`ChatOptions.run`). Without one, the handoff
 * fails with this error before the target is touched, rather than handing off unasked. Not retryable.
 *
 * @example
 * ```ts
 * import { HandoffApprovalUnavailableError } from '@rxagents/handoff';
 *
 * const error = new HandoffApprovalUnavailableError('transfer_to_refunds', { sourceAgentId: 'desk', targetAgentId: 'refunds' });
 * console.log(error.code); // HANDOFF_APPROVAL_UNAVAILABLE
 * ```
 */
export class HandoffApprovalUnavailableError extends CoordinationError {
  /** The handoff tool that needs the approval. */
  readonly toolName: string;

  constructor(toolName: string, sides: HandoffSides = {}) {
    const { sourceAgentId, targetAgentId } = sides;
    super('HANDOFF_APPROVAL_UNAVAILABLE', `The handoff ${toolName} needs a person's approval, but it runs outside a run: nobody can be asked (run it with a run: events$, execute$ with { run }, or a routing agent called inside a run)`, {
      retryable: false,
      context: {
        toolName,
        ...(sourceAgentId === undefined ? {} : { source_agent: sourceAgentId }),
        ...(targetAgentId === undefined ? {} : { target_agent: targetAgentId }),
      },
    });
    this.toolName = toolName;
  }
}
