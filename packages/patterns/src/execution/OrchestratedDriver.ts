import { Observable } from 'rxjs';
import type { RunContext } from '@rxagents/core';
import { checkModelCall } from './checkModelCall';
import { DriverLoop } from './DriverLoop';
import type { ExecutionModel } from './ExecutionModel';
import type { ExecutionResult } from './ExecutionResult';

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
 * completed iteration (before its termination check) and `termination` when it stops. The loop goes on at once when an agent or a
 * condition answers synchronously and from the answer's callback when it answers later, so it runs on
 * virtual time under `TestScheduler.run` and in constant stack.
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
  checkModelCall('OrchestratedDriver', model, input, run);
  return driveModel(model, input, run, true);
}

/** The driver's run; with `snapshots` false it emits the final result only (no `running` snapshot is built). */
export function driveModel<T>(model: ExecutionModel<T>, input: string, run: RunContext | undefined, snapshots: boolean): Observable<ExecutionResult<T>> {
  return new Observable<ExecutionResult<T>>((subscriber) => {
    const loop = new DriverLoop(model, input, run, snapshots, subscriber);
    subscriber.add(loop);
    loop.advance();
  });
}
