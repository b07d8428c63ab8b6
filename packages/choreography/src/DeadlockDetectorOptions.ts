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

/** Options of {@link DeadlockDetector}: how many cycles to list at most (`hasDeadlock` is always exact). */
export type DeadlockDetectorOptions = z.input<typeof DeadlockDetectorOptionsSchema>;
