import { CoordinationError } from '@rxagents/core';

/**
 * A handoff chain is already as deep as `maxDepth` allows.
 *
 * @remarks
 * Raised by {@link Handoff.execute} before the chain is extended and before the target is touched.
 * `context.max_depth` is the limit and `context.current_depth` the chain's depth. Not retryable.
 *
 * @example
 * ```ts
 * import { HandoffDepthError } from '@rxagents/handoff';
 *
 * const error = new HandoffDepthError(10, 10);
 * console.log(error.context?.max_depth, error.context?.current_depth); // 10 10
 * ```
 */
export class HandoffDepthError extends CoordinationError {
  /** The configured limit. */
  readonly maxDepth: number;
  /** The chain's depth when the handoff was refused. */
  readonly currentDepth: number;

  constructor(maxDepth: number, currentDepth: number) {
    super('HANDOFF_DEPTH', `Handoff depth limit reached: chain is ${currentDepth} deep, maxDepth is ${maxDepth}`, {
      retryable: false,
      context: { max_depth: maxDepth, current_depth: currentDepth },
    });
    this.maxDepth = maxDepth;
    this.currentDepth = currentDepth;
  }
}
