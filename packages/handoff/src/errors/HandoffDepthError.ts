import { CoordinationError } from '@rxagents/core';

/**
 * The two sides of a refused handoff, for {@link HandoffDepthError}.
 *
 * @example
 * ```ts
 * import type { HandoffSides } from '@rxagents/handoff';
 *
 * const sides: HandoffSides = { sourceAgentId: 'triage', targetAgentId: 'billing' };
 * ```
 */
export interface HandoffSides {
  readonly sourceAgentId?: string;
  readonly targetAgentId?: string;
}

/**
 * A handoff chain is already as deep as `maxDepth` allows.
 *
 * @remarks
 * Raised by {@link Handoff.execute} before the chain is extended and before the target is touched.
 * `context.max_depth` is the limit, `context.current_depth` the chain's depth, and `context.source_agent`
 * and `context.target_agent` the two sides of the refused handoff when known (the message names them too).
 * Not retryable.
 *
 * @example
 * ```ts
 * import { HandoffDepthError } from '@rxagents/handoff';
 *
 * const error = new HandoffDepthError(10, 10, { sourceAgentId: 'triage', targetAgentId: 'billing' });
 * console.log(error.context?.max_depth, error.context?.current_depth, error.context?.target_agent); // 10 10 billing
 * ```
 */
export class HandoffDepthError extends CoordinationError {
  /** The configured limit. */
  readonly maxDepth: number;
  /** The chain's depth when the handoff was refused. */
  readonly currentDepth: number;
  /** The agent that handed off, when known. */
  readonly sourceAgentId: string | undefined;
  /** The refused target, when known. */
  readonly targetAgentId: string | undefined;

  constructor(maxDepth: number, currentDepth: number, sides: HandoffSides = {}) {
    const { sourceAgentId, targetAgentId } = sides;
    const named = sourceAgentId === undefined || targetAgentId === undefined ? '' : ` (from "${sourceAgentId}" to "${targetAgentId}")`;
    super('HANDOFF_DEPTH', `Handoff depth limit reached: chain is ${currentDepth} deep, maxDepth is ${maxDepth}${named}`, {
      retryable: false,
      context: {
        max_depth: maxDepth,
        current_depth: currentDepth,
        ...(sourceAgentId === undefined ? {} : { source_agent: sourceAgentId }),
        ...(targetAgentId === undefined ? {} : { target_agent: targetAgentId }),
      },
    });
    this.maxDepth = maxDepth;
    this.currentDepth = currentDepth;
    this.sourceAgentId = sourceAgentId;
    this.targetAgentId = targetAgentId;
  }
}
