import { CoordinationError } from '@rxagents/core';

/**
 * A run registry already holds `maxRuns` runs that are still running, so it cannot start another.
 * Retryable: a run that ends makes room.
 *
 * @example
 * ```ts
 * import { RunRegistryFullError } from '@rxagents/web';
 *
 * const error = new RunRegistryFullError(100);
 * console.log(error.code, error.retryable); // RUN_REGISTRY_FULL true
 * ```
 */
export class RunRegistryFullError extends CoordinationError {
  constructor(
    /** The registry's `maxRuns`. */
    readonly maxRuns: number,
  ) {
    super('RUN_REGISTRY_FULL', `The run registry already runs ${maxRuns} runs (maxRuns)`, { retryable: true, context: { maxRuns } });
  }
}
