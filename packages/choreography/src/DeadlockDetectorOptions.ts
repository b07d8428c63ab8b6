import { configRules } from '@rxagents/core';
import { z } from 'zod';

/**
 * The zod schema of {@link DeadlockDetectorOptions}: `maxCycles`, a non-negative integer, default 100.
 *
 * @example
 * ```ts
 * import { DeadlockDetectorOptionsSchema } from '@rxagents/choreography';
 *
 * console.log(DeadlockDetectorOptionsSchema.parse({}).maxCycles); // 100
 * ```
 */
export const DeadlockDetectorOptionsSchema = z.strictObject({
  maxCycles: configRules.nonNegativeInt().default(100),
});

/**
 * Options of {@link DeadlockDetector}: how many cycles to list at most (`hasDeadlock` is always exact).
 *
 * @remarks
 * Lower `maxCycles` to bound the work on a dense graph; `truncated` then says more cycles exist.
 *
 * @example
 * ```ts
 * import { DeadlockDetector, type DeadlockDetectorOptions } from '@rxagents/choreography';
 *
 * const options: DeadlockDetectorOptions = { maxCycles: 1 };
 * const result = DeadlockDetector.detectFromWaitGraph({ a: ['b', 'c'], b: ['a'], c: ['a'] }, options);
 * console.log(result.hasDeadlock, result.cycles.length, result.truncated); // true 1 true
 * ```
 */
export type DeadlockDetectorOptions = z.input<typeof DeadlockDetectorOptionsSchema>;
