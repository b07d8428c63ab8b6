import type { ExecutionBackend, ExecutionModel } from './ExecutionModel';

/**
 * Freezes an {@link ExecutionModel} from a definition that is already valid and complete, without
 * parsing it again. `ExecutionModel.create` calls it after validating a user's definition; the pattern
 * builders call it with models built from options they validated when the user gave them.
 *
 * `output` and `deadlocked` are wrapped so that a forgotten `return` fails the run instead of giving an
 * undefined output or a silent `completed`.
 */
export function assembleModel<T>(definition: ExecutionModel<T>): ExecutionModel<T> {
  const { pattern, output, deadlocked } = definition;
  const model: ExecutionModel<T> = {
    ...definition,
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
    agents: Object.freeze([...definition.agents]),
  };
  return Object.freeze(model);
}

/** A copy of a model that runs on `backend`, for a backend whose settings are already valid. */
export function attachBackend<T>(model: ExecutionModel<T>, backend: ExecutionBackend<T>): ExecutionModel<T> {
  return Object.freeze({ ...model, backend });
}
