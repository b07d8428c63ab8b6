import type { AgentCallResult } from '@rxagents/core';
import type { HandoffContext } from '../context/HandoffContext';

/**
 * The outcome of one handoff by a {@link HandoffStrategy}: core's
 * {@link @rxagents/core!AgentCallResult | AgentCallResult} for the receiver's call, plus who handed off
 * to whom, the task id and the context handed over.
 *
 * @remarks
 * A union on `success`, like `AgentCallResult`: after `if (result.success)`, `output` is the receiver's
 * whole reply (a `string`); otherwise `error` is the `Error` instance and `output` is absent. A strategy
 * never throws: a failure is a result. `agentId` is the receiver's id (the same as `toAgentId`) and
 * `input` the prompt it was given (`''` when the handoff failed before a prompt was built). `startedAt`
 * and `durationMs` are read from the strategy's scheduler, so they are exact in marble tests. An abort
 * reason or a thrown value that is not an `Error` is wrapped in an
 * {@link @rxagents/core!AgentError | AgentError} whose `cause` it is.
 *
 * `taskId` and `context` (the context the receiver was handed) let a result be matched to its request,
 * for example after a handoff operator with `concurrency` above 1, where results arrive in the order they
 * finish. Both are required: a {@link HandoffStrategy} of your own sets them from the context it was given.
 *
 * @example
 * ```ts
 * import type { HandoffResult } from '@rxagents/handoff';
 *
 * function describe(result: HandoffResult): string {
 *   return result.success
 *     ? `[${result.taskId}] ${result.fromAgentId} -> ${result.toAgentId} in ${result.durationMs}ms: ${result.output}`
 *     : `[${result.taskId}] ${result.toAgentId} failed: ${result.error.message}`;
 * }
 * ```
 */
export type HandoffResult = AgentCallResult & {
  /** The sender's id. */
  readonly fromAgentId: string;
  /** The receiver's id (the same as `agentId`), or `'none'` when routing found no receiver. */
  readonly toAgentId: string;
  /** The task id of the context handed over (`context.taskId`). */
  readonly taskId: string;
  /** The context the receiver was handed (for a failure before the receiver ran, the one it would have been). */
  readonly context: HandoffContext;
};
