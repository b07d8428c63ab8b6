import { ConfigError, configRules } from '@rxagents/core';

/**
 * Refuses what a backend cannot run: a model that is not an execution model (build one with
 * `ExecutionModel.create`), an input that is not a string, a run that is not a run context. Cheap
 * checks, so a pattern's run pays next to nothing for them.
 */
export function checkModelCall(subject: string, model: unknown, input: unknown, run: unknown): void {
  const candidate = model as { readonly route?: unknown; readonly agents?: unknown } | null;
  if (typeof candidate !== 'object' || candidate === null || typeof candidate.route !== 'function' || !Array.isArray(candidate.agents)) {
    throw new ConfigError(subject, [{ path: 'model', rule: 'must be an execution model (build one with ExecutionModel.create)', received: model }]);
  }
  if (typeof input !== 'string') throw new ConfigError(subject, [{ path: 'input', rule: 'must be a string', received: input }]);
  if (run !== undefined && !configRules.isRunContext(run)) {
    throw new ConfigError(subject, [{ path: 'run', rule: 'must be a run context ({ runId, callId, scheduler, emit }) or undefined', received: run }]);
  }
}
