import { last, type Observable } from 'rxjs';
import type { RunContext } from '@rxagents/core';
import type { ExecutionModel } from './ExecutionModel';
import type { ExecutionResult } from './ExecutionResult';
import { driveModel } from './OrchestratedDriver';

/**
 * {@link runModel}'s final result only: on the orchestrated driver no `running` snapshot is built at all
 * (what `execute$()`, `execute()` and `events$()` read); a backend's run is taken to its last value.
 */
export function runModelToEnd<T>(model: ExecutionModel<T>, input: string, run?: RunContext): Observable<ExecutionResult<T>> {
  return model.backend === undefined ? driveModel(model, input, run, false) : model.backend(model, input, run).pipe(last());
}
