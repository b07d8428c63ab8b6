import { CoordinationError } from '@rxagents/core';
import type { HandoffSides } from './HandoffDepthError';

/**
 * A handoff's input does not fit its `inputSchema`, or a model called a handoff tool wrongly.
 *
 * @remarks
 * Raised before the chain is extended and before the target is touched. Never retryable: the same
 * input fails again. `issues` lists what was wrong, as `path: message` strings; `context.source_agent` and
 * `context.target_agent` name the two sides when known (a model calling a tool nobody offers names only
 * the source).
 *
 * @example
 * ```ts
 * import { HandoffValidationError } from '@rxagents/handoff';
 *
 * const error = new HandoffValidationError('transfer_to_billing', ['invoiceId: expected string']);
 * console.log(error.message); // Invalid input for transfer_to_billing: invoiceId: expected string
 * ```
 */
export class HandoffValidationError extends CoordinationError {
  /** The handoff tool whose input was refused. */
  readonly toolName: string;
  /** What was wrong, one line each. */
  readonly issues: readonly string[];

  constructor(toolName: string, issues: readonly string[], cause?: unknown, sides: HandoffSides = {}) {
    const { sourceAgentId, targetAgentId } = sides;
    super('HANDOFF_VALIDATION', `Invalid input for ${toolName}: ${issues.join('; ')}`, {
      retryable: false,
      context: {
        toolName,
        issues: [...issues],
        ...(sourceAgentId === undefined ? {} : { source_agent: sourceAgentId }),
        ...(targetAgentId === undefined ? {} : { target_agent: targetAgentId }),
      },
      cause,
    });
    this.toolName = toolName;
    this.issues = Object.freeze([...issues]);
  }
}
