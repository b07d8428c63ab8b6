/**
 * What happened to one interaction of a choreography run.
 *
 * @example
 * ```ts
 * import type { StepResult } from '@rxagents/choreography';
 *
 * function describe(step: StepResult): string {
 *   return `${step.interactionId} by ${step.agentId}: ${step.success ? 'ok' : step.error} (${step.durationMs} ms)`;
 * }
 * ```
 */
export interface StepResult {
  /** The interaction's id. */
  readonly interactionId: string;
  /** The id of the agent that ran it (the interaction's `target`). */
  readonly agentId: string;
  /** The agent's whole reply, on success. */
  readonly output?: string;
  /** How long the step ran, on the engine's scheduler, in milliseconds. */
  readonly durationMs: number;
  /** Whether the agent answered. */
  readonly success: boolean;
  /** Why the step failed, for example `Agent "writer" failed: model down`. */
  readonly error?: string;
}

/**
 * The outcome of a {@link ChoreographyEngine} run.
 *
 * @remarks
 * As in the Java coordination library these APIs follow, `success` means no step failed, and
 * interactions that never triggered leave no step result. Two fields are added so a run cut short cannot
 * pass for a complete one: `timedOut` (the engine's timeout passed) and `pending` (ids of interactions
 * that never started). Both count only the interactions this engine runs: those whose target is in
 * its `agents`, not in `remoteAgents`. A step still running at the timeout is aborted and reported as a failed step.
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
