import { parseConfig } from '@rxagents/core';
import { type ExecutionBackend, type ExecutionModel, type ExecutionModelDefinition, ExecutionModelSchema } from './ExecutionModel';

// Builds validated ExecutionModels; exported from the package as the module namespace `ExecutionModel`.

/**
 * Validates a definition, applies the defaults (`concurrency` 1, `failOnAgentError` false,
 * `asyncScheduler`) and freezes the model.
 *
 * @throws `ConfigError` naming the field, e.g. `ExecutionModel: concurrency must be a positive integer, got 0`.
 *
 * @example
 * ```ts
 * import { defineAgent } from '@rxagents/core';
 * import { ExecutionModel, TerminationCondition } from '@rxagents/patterns';
 *
 * const echo = defineAgent('echo', async (input) => input);
 * const model = ExecutionModel.create<string>({
 *   pattern: 'echo-once',
 *   agents: [echo],
 *   initialState: (input) => input,
 *   route: () => [echo],
 *   prompt: (state) => state,
 *   aggregate: (state, result) => (result.success ? result.output : state),
 *   termination: TerminationCondition.maxIterations(1),
 *   output: (state) => state,
 * });
 * ```
 */
export function create<T>(definition: ExecutionModelDefinition<T>): ExecutionModel<T> {
  const parsed = parseConfig(ExecutionModelSchema, definition, 'ExecutionModel');
  const { pattern, output, deadlocked } = definition;
  const model: ExecutionModel<T> = {
    ...definition,
    // A forgotten `return` here would give an undefined output or a silent `completed`: fail instead.
    output: (state) => {
      const text: unknown = output(state);
      if (typeof text !== 'string') throw new TypeError(`${pattern}: output gave ${String(text)}; return the run's answer as a string`);
      return text;
    },
    ...(deadlocked === undefined
      ? {}
      : {
          deadlocked: (state: T) => {
            const stuck: unknown = deadlocked(state);
            if (typeof stuck !== 'boolean') throw new TypeError(`${pattern}: deadlocked gave ${String(stuck)}; return true or false`);
            return stuck;
          },
        }),
    failOnAgentError: parsed.failOnAgentError,
    concurrency: parsed.concurrency,
    scheduler: parsed.scheduler,
    agents: Object.freeze([...definition.agents]),
  };
  return Object.freeze(model);
}

/**
 * A copy of `model` that runs on `backend`.
 *
 * @example
 * ```ts
 * // no-run: a fragment: `model` is any model made with ExecutionModel.create
 * import { ExecutionModel, OrchestratedDriver, type ExecutionModel as Model } from '@rxagents/patterns';
 *
 * declare const model: Model<string>;
 * const direct = ExecutionModel.withBackend(model, OrchestratedDriver);
 * ```
 */
export function withBackend<T>(model: ExecutionModel<T>, backend: ExecutionBackend<T>): ExecutionModel<T> {
  return Object.freeze({ ...model, backend });
}
