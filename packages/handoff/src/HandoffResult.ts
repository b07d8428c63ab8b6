import type { HandoffContext } from './HandoffContext';

/**
 * The outcome of one handoff by a {@link HandoffStrategy}: who handed off to whom, how long it took, and
 * the receiver's reply or the error.
 *
 * @remarks
 * A strategy never throws: a failure is a result with `success: false`, `output: null` and `error` set.
 * `durationMs` is measured on the strategy's scheduler, so it is exact in marble tests. `taskId` and
 * `context` (the context the receiver was handed) let a result be matched to its request, for example
 * after a handoff operator with `concurrency` above 1, where results arrive in the order they finish.
 * Both are required: a {@link HandoffStrategy} of your own sets them from the context it was given.
 *
 * @example
 * ```ts
 * import type { HandoffResult } from '@rxagents/handoff';
 *
 * function describe(result: HandoffResult): string {
 *   return result.success
 *     ? `[${result.taskId}] ${result.fromAgentId} -> ${result.toAgentId} in ${result.durationMs}ms: ${result.output}`
 *     : `[${result.taskId}] ${result.toAgentId} failed: ${String(result.error)}`;
 * }
 * ```
 */
export interface HandoffResult {
  /** Whether the receiver answered. */
  readonly success: boolean;
  /** The sender's id. */
  readonly fromAgentId: string;
  /** The receiver's id, or `'none'` when routing found no receiver. */
  readonly toAgentId: string;
  /** The task id of the context handed over (`context.taskId`). */
  readonly taskId: string;
  /** The context the receiver was handed (for a failure before the receiver ran, the one it would have been). */
  readonly context: HandoffContext;
  /** Time from the start of the handoff to its outcome, in ms on the scheduler's clock. */
  readonly durationMs: number;
  /** The receiver's whole reply; `null` on failure. */
  readonly output: string | null;
  /** Why it failed; `undefined` on success. */
  readonly error?: unknown;
}
