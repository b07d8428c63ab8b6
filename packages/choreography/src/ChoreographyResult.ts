import type { AgentCallResult } from '@rxagents/core';

/**
 * What happened to one interaction of a choreography run: the call of its target agent, and which
 * interaction it was.
 *
 * @remarks
 * An {@link AgentCallResult} (`success`, `agentId`, `input`, `output`, `error`, `startedAt`,
 * `durationMs`) plus `interactionId`. `agentId` is the interaction's `target` (the id the agent is
 * registered under), `input` the prompt it got (the task, followed by the context of the event that
 * triggered it), and on a failure `error` is the error instance: an `AgentError`, an
 * `AgentTimeoutError` (the interaction's `timeout`) or a {@link ChoreographyTimeoutError} (the engine's
 * `timeout` passed while the step ran). Times are on the engine's scheduler.
 *
 * @example
 * ```ts
 * import type { StepResult } from '@rxagents/choreography';
 *
 * function describe(step: StepResult): string {
 *   return `${step.interactionId} by ${step.agentId}: ${step.success ? 'ok' : step.error.message} (${step.durationMs} ms)`;
 * }
 * ```
 */
export type StepResult = AgentCallResult & {
  /** The interaction's id. */
  readonly interactionId: string;
};

/**
 * The outcome of a {@link ChoreographyEngine} run.
 *
 * @remarks
 * `success` means no step failed, and
 * interactions that never triggered leave no step result. Two fields are added so a run cut short cannot
 * pass for a complete one: `timedOut` (the engine's timeout passed) and `pending` (ids of interactions
 * that never started). Both count only the interactions this engine runs: those whose target is in
 * its `agents`, not in `remoteAgents`. A step still running at the timeout is aborted and reported as a failed step.
 * On a bus shared by engines in several processes (a bus with a `coordinator`), `stepResults` holds every
 * step of the run, whichever engine ran it, and `pending` every interaction of the spec that never started.
 *
 * @example
 * ```ts
 * import type { ChoreographyResult } from '@rxagents/choreography';
 *
 * function finished(result: ChoreographyResult): boolean {
 *   return result.success && !result.timedOut && result.pending.length === 0;
 * }
 * ```
 */
export interface ChoreographyResult {
  /** No step failed. */
  readonly success: boolean;
  /** Every step that ran, in the order they finished. */
  readonly stepResults: readonly StepResult[];
  /** From the start of the run to its end, on the engine's scheduler, in milliseconds. */
  readonly totalDurationMs: number;
  /** How many steps succeeded. */
  readonly completedCount: number;
  /** How many steps failed. */
  readonly failedCount: number;
  /** Whether the run ended because its timeout passed. */
  readonly timedOut: boolean;
  /** Ids of the interactions that never started, in spec order. */
  readonly pending: readonly string[];
}
