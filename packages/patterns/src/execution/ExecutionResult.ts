import type { AgentResult } from './AgentResult';

/**
 * Where a run stands: `running` for progress snapshots, anything else for the final result.
 *
 * @example
 * ```ts
 * import { defineAgent } from '@rxagents/core';
 * import { Patterns, type ExecutionStatus } from '@rxagents/patterns';
 *
 * // Escalated and deadlocked runs ended without a decision: a person should look.
 * const needsAPerson = (status: ExecutionStatus): boolean => status === 'escalated' || status === 'deadlocked';
 * const voters = [defineAgent('a', async () => 'yes'), defineAgent('b', async () => 'no')];
 * const { status } = await Patterns.voting({ agents: voters }).execute('Ship?');
 * console.log(status, needsAPerson(status)); // deadlocked true
 * ```
 */
export type ExecutionStatus = 'running' | 'completed' | 'failed' | 'escalated' | 'deadlocked';

/**
 * A snapshot of a pattern run; the last one a run emits is its outcome.
 *
 * @remarks
 * A backend emits one `running` snapshot after every step (an agent's result aggregated, a message
 * folded into the conversation) and ends with exactly one final result whose status is `completed`,
 * `failed`, `escalated` (a condition asked for someone above to decide) or `deadlocked` (a vote
 * tied). `execute$()` gives only the final one; `snapshots$()` gives them all, which is how a supervisor or a
 * UI watches a run's live state. Durations come from the run's scheduler.
 *
 * @example
 * ```ts
 * import type { ExecutionResult } from '@rxagents/patterns';
 *
 * function summary(result: ExecutionResult<unknown>): string {
 *   return `${result.pattern} ${result.status} after ${result.iterations} iteration(s): ${result.output}`;
 * }
 * ```
 */
export interface ExecutionResult<T> {
  /** The pattern's name (`debate`, `voting`, ...). */
  readonly pattern: string;
  /** `direct` (the orchestrated driver) or `channel` (a channel backend). */
  readonly mode: 'direct' | 'channel';
  readonly status: ExecutionStatus;
  /** The state: the driver's, or the channel's projection mapped to `T`. */
  readonly state: T;
  /** The pattern's answer, read from the state. */
  readonly output: string;
  /** Completed iterations (driver loops, conversation rounds), counted as soon as an iteration's last result is in; an iteration in which an agent failed and ended the run is not counted. The same directly and over a channel. */
  readonly iterations: number;
  /** Every agent result so far, in the order they reached the run (completion order), in both modes (a Barrier folds them into the state in agent order). Frozen, built when first read. */
  readonly results: readonly AgentResult[];
  /** Why the run ended (the termination decision's reason); `undefined` while running. */
  readonly reason: string | undefined;
  /** The error behind a `failed` status, if any. */
  readonly error: unknown;
  /** Scheduler time since the run started, in ms. */
  readonly durationMs: number;
}
