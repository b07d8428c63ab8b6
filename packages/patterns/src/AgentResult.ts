/**
 * What one agent call produced inside a pattern run: its reply, or the failure recorded in its place.
 *
 * @remarks
 * Patterns never let one agent's failure hang a run: a throw, a rejection, an `AgentTimeoutError`
 * (the per-agent `agentTimeout`) or an `ExecutionTimeoutError` (the run's overall `timeout`) becomes a
 * result with `ok: false`. Whether a failure ends the run is the pattern's choice: a debate and a
 * sequence fail, a vote and a parallel fan-out keep the other results. Times are read from the run's
 * scheduler.
 *
 * @example
 * ```ts
 * import type { AgentResult } from '@rxagents/patterns';
 *
 * function describe(result: AgentResult): string {
 *   return result.ok ? `${result.agentId}: ${result.output}` : `${result.agentId} failed${result.timedOut ? ' (timeout)' : ''}`;
 * }
 * ```
 */
export type AgentResult = AgentSuccess | AgentFailure;

/** A reply an agent finished. See {@link AgentResult}. */
export interface AgentSuccess {
  readonly ok: true;
  /** The agent's id. */
  readonly agentId: string;
  /** The joined reply. */
  readonly output: string;
  /** Scheduler time the call started. */
  readonly startedAt: number;
  /** Scheduler time the reply was complete. */
  readonly finishedAt: number;
}

/** A call that failed or timed out, recorded as a result. See {@link AgentResult}. */
export interface AgentFailure {
  readonly ok: false;
  /** The agent's id. */
  readonly agentId: string;
  /** What went wrong (an `AgentError`, `AgentTimeoutError` or `ExecutionTimeoutError`). */
  readonly error: unknown;
  /** Whether a per-agent or overall timeout ended the call. */
  readonly timedOut: boolean;
  /** Scheduler time the call started (or, for a call that never started, the time it was given up). */
  readonly startedAt: number;
  /** Scheduler time the failure was recorded. */
  readonly finishedAt: number;
}
