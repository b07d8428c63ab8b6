import type { AgentResult } from './AgentResult';
import type { AppendLog } from '../conversation/AppendLog';
import type { ExecutionModel } from './ExecutionModel';
import type { ExecutionResult, ExecutionStatus } from './ExecutionResult';
import type { TerminationDecision } from '../termination/TerminationDecision';
import { logView, markLog } from '../conversation/logView';

/** `results` of every snapshot: one getter for all (see {@link logView}). */
const RESULTS = logView();

/** The facts of a run at one moment, from which {@link resultOf} builds an {@link ExecutionResult}. */
export interface RunFacts<T> {
  readonly model: ExecutionModel<T>;
  readonly mode: 'direct' | 'channel';
  readonly state: T;
  readonly iterations: number;
  /** Every result so far: shared with the run, so a snapshot costs O(1) whatever the run's length. */
  readonly results: AppendLog<AgentResult>;
  readonly startedAt: number;
}

/**
 * A `running` snapshot, or, given the decision that ended the run, the final result.
 *
 * @remarks
 * O(1): `results` is a view of the run's shared log, built into a frozen array when first read.
 */
export function resultOf<T>(facts: RunFacts<T>, decision?: Exclude<TerminationDecision, { type: 'continue' }>): ExecutionResult<T> {
  const { model, state } = facts;
  // The keys in the interface's order, as an object literal would have them; `results` is the shared getter.
  const result = {
    pattern: model.pattern,
    mode: facts.mode,
    status: decision === undefined ? 'running' : statusOf(model, state, decision),
    state,
    output: model.output(state),
    iterations: facts.iterations,
  } as { -readonly [K in keyof ExecutionResult<T>]: ExecutionResult<T>[K] };
  Object.defineProperty(result, 'results', RESULTS);
  result.reason = decision?.reason;
  result.error = decision?.error;
  result.durationMs = model.scheduler.now() - facts.startedAt;
  return markLog(result, facts.results);
}

function statusOf<T>(model: ExecutionModel<T>, state: T, decision: Exclude<TerminationDecision, { type: 'continue' }>): ExecutionStatus {
  if (decision.type === 'failed') return 'failed';
  if (decision.type === 'escalate') return 'escalated';
  return model.deadlocked?.(state) === true ? 'deadlocked' : 'completed';
}
