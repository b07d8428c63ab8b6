import type { AgentCallFailure, AgentCallSuccess } from '@rxagents/core';

/**
 * What one agent call produced inside a pattern run: its reply, or the failure recorded in its place.
 *
 * @remarks
 * The `AgentCallResult` of `@rxagents/core` (`success`, `agentId`, `input`, `output`, `error`,
 * `startedAt`, `durationMs`), with `timedOut` added on a failure. Patterns never let one agent's failure
 * hang a run: a throw, a rejection, an `AgentTimeoutError` (the per-agent `agentTimeout`) or an
 * `ExecutionTimeoutError` (the run's overall `timeout`) becomes a result with `success: false` and the
 * error instance in `error`. Whether a failure ends the run is the pattern's choice: a debate and a
 * sequence fail, a vote and a parallel fan-out keep the other results. Times are read from the run's
 * scheduler; a reply was complete at `startedAt + durationMs`.
 *
 * @example
 * ```ts
 * import type { AgentResult } from '@rxagents/patterns';
 *
 * function describe(result: AgentResult): string {
 *   return result.success ? `${result.agentId}: ${result.output}` : `${result.agentId} failed${result.timedOut ? ' (timeout)' : ''}: ${result.error.message}`;
 * }
 * ```
 */
export type AgentResult = AgentSuccess | AgentFailure;

/**
 * A reply an agent finished: an `AgentCallSuccess` of `@rxagents/core`. See {@link AgentResult}.
 *
 * @example
 * ```ts
 * import { defineAgent } from '@rxagents/core';
 * import { Patterns, type AgentSuccess } from '@rxagents/patterns';
 *
 * const agents = [defineAgent('fast', async () => 'done'), defineAgent('slow', async () => 'done too')];
 * const { results } = await Patterns.parallel({ agents }).execute('Work');
 * const answers = results.filter((result): result is AgentSuccess => result.success);
 * console.log(answers.map((a) => `${a.agentId} took ${a.durationMs} ms`));
 * ```
 */
export type AgentSuccess = AgentCallSuccess;

/**
 * A call that failed or timed out, recorded as a result. See {@link AgentResult}.
 *
 * @remarks
 * `error` is an `AgentError`, an `AgentTimeoutError` or an `ExecutionTimeoutError`. An agent the run's
 * overall `timeout` cut off while it worked keeps its `input` and `startedAt`; one that never started
 * has `input: ''`, and `startedAt` is when it was given up (`durationMs: 0`).
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
 * const failures = results.filter((result): result is AgentFailure => !result.success);
 * console.log(failures.map((f) => `${f.timedOut ? 'late' : 'failed'}: ${f.error.message}`)); // [ 'failed: Agent "broken" failed: quota exceeded' ]
 * ```
 */
export interface AgentFailure extends AgentCallFailure {
  /** Whether a per-agent or overall timeout ended the call. */
  readonly timedOut: boolean;
}
