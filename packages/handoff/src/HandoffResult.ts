/**
 * The outcome of one handoff by a {@link HandoffStrategy}: who handed off to whom, how long it took, and
 * the receiver's reply or the error.
 *
 * @remarks
 * A strategy never throws: a failure is a result with `success: false`, `output: null` and `error` set.
 * `durationMs` is measured on the strategy's scheduler, so it is exact in marble tests.
 *
 * @example
 * ```ts
 * import type { HandoffResult } from '@rxagents/handoff';
 *
 * function describe(result: HandoffResult): string {
 *   return result.success
 *     ? `${result.fromAgentId} -> ${result.toAgentId} in ${result.durationMs}ms: ${result.output}`
 *     : `${result.toAgentId} failed: ${String(result.error)}`;
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
  /** Time from the start of the handoff to its outcome, in ms on the scheduler's clock. */
  readonly durationMs: number;
  /** The receiver's whole reply; `null` on failure. */
  readonly output: string | null;
  /** Why it failed; `undefined` on success. */
  readonly error?: unknown;
}
