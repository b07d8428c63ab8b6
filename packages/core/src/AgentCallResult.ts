/**
 * The outcome of one agent call: what it was asked, what it answered or why it failed, and when.
 *
 * @remarks
 * The one result shape of rxagents: every package's per-call result (a choreography `StepResult`, a
 * pattern's `AgentResult`, a handoff's result) is this object with a few fields of its own added, so
 * code that logs, filters or retries agent calls works on all of them.
 *
 * - `success` is the discriminant: `true` with the whole reply in `output`, `false` with the real
 *   `Error` in `error` (usually an {@link AgentError} or an {@link AgentTimeoutError} from
 *   {@link stream}; a package may record its own, such as a run's timeout). `output` is absent on a
 *   failure and `error` absent on a success, so `result.output ?? ''` reads either without narrowing.
 * - `startedAt` is the scheduler's time (`scheduler.now()`, ms) when the call started, and `durationMs`
 *   how long it took on the same scheduler: on `TestScheduler.run` both are virtual.
 * - `error` is an instance, so `instanceof` and `code` work; `JSON.stringify` writes it as `{}`, so
 *   serialise `error.message` (or the error's own fields) when you ship results elsewhere.
 *
 * {@link callAgent} makes one from a call.
 *
 * @example
 * ```ts
 * import { AgentTimeoutError, callAgent, defineAgent, type AgentCallResult } from '@rxagents/core';
 * import { lastValueFrom } from 'rxjs';
 *
 * function describe(result: AgentCallResult): string {
 *   if (result.success) return `${result.agentId} answered "${result.output}" in ${result.durationMs} ms`;
 *   return `${result.agentId} ${result.error instanceof AgentTimeoutError ? 'timed out' : 'failed'}: ${result.error.message}`;
 * }
 *
 * const echo = defineAgent('echo', async (input) => input);
 * console.log(describe(await lastValueFrom(callAgent(echo, 'hi')))); // echo answered "hi" in 0 ms (or a few)
 * ```
 */
export type AgentCallResult = AgentCallSuccess | AgentCallFailure;

/**
 * An agent call that answered. See {@link AgentCallResult}.
 *
 * @example
 * ```ts
 * import type { AgentCallResult, AgentCallSuccess } from '@rxagents/core';
 *
 * const answers = (results: readonly AgentCallResult[]): string[] =>
 *   results.filter((result): result is AgentCallSuccess => result.success).map((result) => result.output);
 * ```
 */
export interface AgentCallSuccess {
  /** The call answered. */
  readonly success: true;
  /** The id of the agent called. */
  readonly agentId: string;
  /** The prompt the agent was given. */
  readonly input: string;
  /** The whole reply: the chunks joined (`''` when the agent sent none). */
  readonly output: string;
  /** Absent: the call did not fail. */
  readonly error?: undefined;
  /** The scheduler's time when the call started, in ms. */
  readonly startedAt: number;
  /** How long the call took, on the same scheduler, in ms. */
  readonly durationMs: number;
}

/**
 * An agent call that failed, recorded as a value. See {@link AgentCallResult}.
 *
 * @example
 * ```ts
 * import { AgentError, type AgentCallFailure } from '@rxagents/core';
 *
 * function retryable(failure: AgentCallFailure): boolean {
 *   return failure.error instanceof AgentError && failure.error.retryable;
 * }
 * ```
 */
export interface AgentCallFailure {
  /** The call failed. */
  readonly success: false;
  /** The id of the agent called. */
  readonly agentId: string;
  /** The prompt the agent was given (`''` for a call given up before it started, which got none). */
  readonly input: string;
  /** Absent: a failed call has no reply (chunks streamed before the failure are not kept). */
  readonly output?: undefined;
  /** Why the call failed: the error instance itself. */
  readonly error: Error;
  /** The scheduler's time when the call started (or, for a call that never started, was given up), in ms. */
  readonly startedAt: number;
  /** How long the call took until it failed, on the same scheduler, in ms. */
  readonly durationMs: number;
}
