import { concat, defer, filter, map, type Observable, of } from 'rxjs';
import type { AgentFailure, AgentResult } from './AgentResult';
import { AppendLog } from './AppendLog';
import { dispatchAgents } from './dispatchAgents';
import { decideBeforeDeadline, overallDeadline, passedDeadline } from './RunDeadline';
import type { ExecutionModel } from './ExecutionModel';
import type { ExecutionResult } from './ExecutionResult';
import { resultOf } from './resultOf';
import { type RunContext, unfoldSteps, type Unfolded } from '@rxagents/core';
import { emitMessage, emitRoundEnd, emitTermination } from './patternEvents';
import type { TerminationDecision } from './TerminationDecision';
import { evaluateTermination } from './evaluateTermination';

/**
 * The default backend: the five-phase loop (route, activate, dispatch, aggregate, check termination)
 * with agents invoked directly.
 *
 * @remarks
 * The driver holds the state; agents never see each other's output except through what the model's
 * `prompt` chooses to tell them. Each iteration routes agents, calls them through core's `invoke$`
 * (concurrently up to the model's `concurrency`, each prompt built when its call starts), folds every
 * result into the state as it arrives (one `running` snapshot each; the snapshot of an iteration's last
 * result already counts the iteration in `iterations`), then evaluates the termination condition on the
 * new snapshot. A failure that ends the run (the model's `failOnAgentError`) has no `running` snapshot:
 * the final `failed` result follows at once, and the iteration it happened in is not counted. Snapshots
 * share the run's results (O(1) each, see {@link ExecutionResult}). The run ends when routing returns
 * no agent, when a condition stops, when an agent fails and the model has `failOnAgentError`, or when
 * the overall `timeout` has passed (`failed`). Unsubscribing aborts every agent call in flight (their
 * `AbortSignal`s fire) and clears every timer. With `run` (the pattern's node in a run), every agent
 * call reports into it and the driver says `message` for each successful reply, `round-end` after each
 * completed iteration (before its termination check) and `termination` when it stops. The loop is an Observable whose steps are subscribed one after another from a flat
 * loop, so it runs on virtual time under `TestScheduler.run` and in constant stack.
 *
 * @example
 * ```ts
 * import { defineAgent } from '@rxagents/core';
 * import { OrchestratedDriver, Patterns } from '@rxagents/patterns';
 *
 * const a = defineAgent('a', async () => 'yes');
 * const b = defineAgent('b', async () => 'yes');
 * const model = Patterns.voting({ agents: [a, b] }).build();
 * OrchestratedDriver(model, 'Ship it?').subscribe((result) => console.log(result.status, result.output));
 * ```
 */
export function OrchestratedDriver<T>(model: ExecutionModel<T>, input: string, run?: RunContext): Observable<ExecutionResult<T>> {
  return defer(() => {
    const { scheduler } = model;
    const startedAt = scheduler.now();
    const overall = overallDeadline(model.timeout, startedAt);
    let results = AppendLog.empty<AgentResult>();
    let state = model.initialState(input);
    const facts = (iterations: number) => ({ model, mode: 'direct' as const, state, iterations, results, startedAt });
    const emit = (result: ExecutionResult<T>): Unfolded<LoopStep, ExecutionResult<T>> => ({ emit: result });
    const stop = (iterations: number, decision: Stop): Unfolded<LoopStep, ExecutionResult<T>> => {
      if (run !== undefined) emitTermination(run, decision);
      return emit(resultOf(facts(iterations), decision));
    };

    const iterate = (iteration: number): Observable<Unfolded<LoopStep, ExecutionResult<T>>> => {
      const routed = model.route(state, iteration);
      if (!Array.isArray(routed)) throw new TypeError(`${model.pattern}: route gave ${String(routed)} at iteration ${iteration}; return the agents to call ([] to end the run)`);
      if (routed.length === 0) return of(stop(iteration, { type: 'complete', reason: 'no agent left to route' }));
      let failure: AgentFailure | undefined;
      let received = 0;
      const step$ = dispatchAgents(routed, (ref) => model.prompt(state, ref, iteration), {
        pattern: model.pattern,
        concurrency: model.concurrency,
        agentTimeout: model.agentTimeout,
        overall,
        failFast: model.failOnAgentError,
        scheduler,
        run,
      }).pipe(
        // `map` and `filter`, not a `concatMap` to `of` or `EMPTY`: the same order, without an inner subscription per result.
        map((result) => {
          state = model.aggregate(state, result);
          results = results.append(result);
          received += 1;
          if (run !== undefined && result.success) emitMessage(run, result.agentId, result.output);
          // A failure that ends the run shows in the final result only, as over a channel.
          if (!result.success && model.failOnAgentError) {
            failure ??= result;
            return undefined;
          }
          // The snapshot of an iteration's last result already counts the iteration as completed.
          return emit(resultOf(facts(received === routed.length ? iteration + 1 : iteration)));
        }),
        filter((step) => step !== undefined),
      );
      // An iteration in which an agent failed (and the model fails on it) is not a completed one.
      return concat(step$, defer(() => of({ next: failure === undefined ? { check: iteration + 1, failure } : { check: iteration, failure } })));
    };

    const check = (completed: number, failure: AgentFailure | undefined): Observable<Unfolded<LoopStep, ExecutionResult<T>>> => {
      if (failure !== undefined) {
        return of(stop(completed, { type: 'failed', reason: `agent ${failure.agentId} failed`, error: failure.error }));
      }
      if (run !== undefined) emitRoundEnd(run, completed);
      const elapsedMs = scheduler.now() - startedAt;
      const decision$ = evaluateTermination(model.termination, run === undefined ? { state, iteration: completed, elapsedMs } : { state, iteration: completed, elapsedMs, run });
      return decideBeforeDeadline(decision$, overall, scheduler, model.pattern).pipe(
        map((decision): Unfolded<LoopStep, ExecutionResult<T>> => {
          if (decision.type !== 'continue') return stop(completed, decision);
          const late = passedDeadline(overall, scheduler, model.pattern);
          if (late !== undefined) return stop(completed, late);
          return { next: { iterate: completed } };
        }),
      );
    };

    // A flat loop (see unfoldSteps): agents that answer synchronously run in constant stack.
    return unfoldSteps<LoopStep, ExecutionResult<T>>({ iterate: 0 }, (step) => ('iterate' in step ? iterate(step.iterate) : check(step.check, step.failure)));
  });
}

type Stop = Exclude<TerminationDecision, { type: 'continue' }>;

/** One step of the driver loop: an iteration to run, or a termination check to make. */
type LoopStep = { readonly iterate: number } | { readonly check: number; readonly failure: AgentFailure | undefined };
