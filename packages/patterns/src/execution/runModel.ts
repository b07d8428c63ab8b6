import type { Observable } from 'rxjs';
import type { RunContext } from '@rxagents/core';
import type { ExecutionModel } from './ExecutionModel';
import type { ExecutionResult } from './ExecutionResult';
import { checkModelCall } from './checkModelCall';
import { OrchestratedDriver } from './OrchestratedDriver';

/**
 * Runs a model on its own backend (`model.backend`), or on the {@link OrchestratedDriver} when it has none.
 *
 * @remarks
 * Cold: each subscription is one run. It emits `running` snapshots, then the final result.
 * Because the backend travels with the model, a model built with `.overChannel()` runs over its
 * channel wherever it is run from, a `ComposedAgent` included. With `run` (the context of the
 * pattern's node in a run) the backend reports the run's agent calls and events into it; a builder's
 * `execute$(input, { run })` and `events$(input)` make that node for you.
 *
 * @example
 * ```ts
 * import { defineAgent } from '@rxagents/core';
 * import { Patterns, runModel } from '@rxagents/patterns';
 *
 * const yes = defineAgent('yes', async () => 'approve');
 * const no = defineAgent('no', async () => 'reject');
 * const model = Patterns.voting({ agents: [yes, no] }).overChannel().build();
 * runModel(model, 'Merge the PR?').subscribe((result) => console.log(result.mode, result.status));
 * ```
 */
export function runModel<T>(model: ExecutionModel<T>, input: string, run?: RunContext): Observable<ExecutionResult<T>> {
  checkModelCall('runModel', model, input, run);
  return (model.backend ?? OrchestratedDriver)(model, input, run);
}
