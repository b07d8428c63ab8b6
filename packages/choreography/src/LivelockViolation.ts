/**
 * The kinds of livelock a {@link LivelockDetector} reports.
 *
 * @remarks
 * - `REPEATED_MESSAGE`: an agent sent the same message `repeatedMessageThreshold` times within
 *   `messageWindowMs`.
 * - `OSCILLATING_STATE`: an agent's state went back and forth between two values
 *   `oscillationThreshold` times in a row.
 * - `PROGRESS_STALL`: an agent recorded no new action for `progressTimeoutMs`.
 *
 * @example
 * ```ts
 * import { LivelockViolationType } from '@rxagents/choreography';
 *
 * console.log(Object.keys(LivelockViolationType)); // [ 'REPEATED_MESSAGE', 'OSCILLATING_STATE', 'PROGRESS_STALL' ]
 * ```
 */
export const LivelockViolationType = Object.freeze({
  REPEATED_MESSAGE: 'REPEATED_MESSAGE',
  OSCILLATING_STATE: 'OSCILLATING_STATE',
  PROGRESS_STALL: 'PROGRESS_STALL',
} as const);

/** One of `REPEATED_MESSAGE`, `OSCILLATING_STATE`, `PROGRESS_STALL`. */
export type LivelockViolationType = (typeof LivelockViolationType)[keyof typeof LivelockViolationType];

/**
 * One livelock symptom a {@link LivelockDetector} found.
 *
 * @example
 * ```ts
 * import type { LivelockViolation } from '@rxagents/choreography';
 *
 * const violation: LivelockViolation = {
 *   type: 'OSCILLATING_STATE',
 *   agentId: 'planner',
 *   detail: 'State alternated 4 times between "plan" and "replan"',
 *   timestamp: 12_000,
 * };
 * ```
 */
export interface LivelockViolation {
  readonly type: LivelockViolationType;
  /** The agent showing the symptom. */
  readonly agentId: string;
  /** A readable explanation, for logs. */
  readonly detail: string;
  /** When it was found, on the detector's scheduler clock (`scheduler.now()`). */
  readonly timestamp: number;
}
