import type { AgentResult } from './AgentResult';
import type { ExecutionModel } from './ExecutionModel';
import type { ExecutionResult, ExecutionStatus } from './ExecutionResult';
import type { TerminationDecision } from './TerminationDecision';

/** The facts of a run at one moment, from which {@link resultOf} builds an {@link ExecutionResult}. */
export interface RunFacts<T> {
  readonly model: ExecutionModel<T>;
  readonly mode: 'direct' | 'channel';
  readonly state: T;
  readonly iterations: number;
  readonly results: readonly AgentResult[];
  readonly startedAt: number;
}

/** A `running` snapshot, or, given the decision that ended the run, the final result. */
export function resultOf<T>(facts: RunFacts<T>, decision?: Exclude<TerminationDecision, { type: 'continue' }>): ExecutionResult<T> {
  const { model, state } = facts;
  return {
    pattern: model.pattern,
    mode: facts.mode,
    status: decision === undefined ? 'running' : statusOf(model, state, decision),
    state,
    output: model.output(state),
    iterations: facts.iterations,
    results: [...facts.results],
    reason: decision?.reason,
    error: decision?.error,
    durationMs: model.scheduler.now() - facts.startedAt,
  };
}

function statusOf<T>(model: ExecutionModel<T>, state: T, decision: Exclude<TerminationDecision, { type: 'continue' }>): ExecutionStatus {
  if (decision.type === 'failed') return 'failed';
  if (decision.type === 'escalate') return 'escalated';
  return model.deadlocked?.(state) === true ? 'deadlocked' : 'completed';
}
