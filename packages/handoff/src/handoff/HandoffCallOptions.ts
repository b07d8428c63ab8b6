import { z } from 'zod';
import { configRules, type RunContext } from '@rxagents/core';

/**
 * Per-call options of {@link Handoff.execute}.
 *
 * @example
 * ```ts
 * import type { HandoffCallOptions } from '@rxagents/handoff';
 *
 * const options: HandoffCallOptions = { signal: AbortSignal.timeout(30_000) };
 * ```
 */
export interface HandoffCallOptions {
  /** Aborting it aborts the target and rejects with the signal's reason (`execute` only; unsubscribe from `execute$` instead). */
  readonly signal?: AbortSignal;
  /**
   * The run to report into (from `observeRun`, a primitive's node, or an agent's `ChatOptions.run`): the
   * handoff is then a `handoff` node of that run, with a `handoff` event and the target's call under it.
   */
  readonly run?: RunContext;
}

/**
 * The zod schema of {@link HandoffCallOptions} (strict: an unknown key is a `ConfigError`).
 *
 * @example
 * ```ts
 * import { HandoffCallOptionsSchema } from '@rxagents/handoff';
 *
 * console.log(HandoffCallOptionsSchema.safeParse({ signl: AbortSignal.timeout(10) }).success); // false
 * ```
 */
export const HandoffCallOptionsSchema = z.strictObject({
  signal: configRules.abortSignal().optional(),
  run: configRules.runContext().optional(),
});
