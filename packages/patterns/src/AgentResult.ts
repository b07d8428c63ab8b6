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

/**
 * A reply an agent finished. See {@link AgentResult}.
 *
 * @example
 * ```ts
 * import { defineAgent } from '@rxagents/core';
 * import { Patterns, type AgentSuccess } from '@rxagents/patterns';
 *
 * const agents = [defineAgent('fast', async () => 'done'), defineAgent('slow', async () => 'done too')];
 * const { results } = await Patterns.parallel({ agents }).execute('Work');
 * const answers = results.filter((result): result is AgentSuccess => result.ok);
 * console.log(answers.map((a) => `${a.agentId} took ${a.finishedAt - a.startedAt} ms`));
 * ```
 */
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

/**
 * A call that failed or timed out, recorded as a result. See {@link AgentResult}.
 *
 * @example
 * ```ts
 * import { defineAgent } from '@rxagents/core';
 * import { Patterns, type AgentFailure } from '@rxagents/patterns';
 *
 * const ok = defineAgent('ok', async () => 'done');
 * const broken = defineAgent('broken', async () => {
 *   throw new Error('quota exceeded');
 * });
 * const { results } = await Patterns.parallel({ agents: [ok, broken] }).execute('Work');
 * const failures = results.filter((result): result is AgentFailure => !result.ok);
 * console.log(failures.map((f) => `${f.timedOut ? 'late' : 'failed'}: ${(f.error as Error).message}`)); // [ 'failed: Agent "broken" failed: quota exceeded' ]
 * ```
 */
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
