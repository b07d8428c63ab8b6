import { configRules } from '@rxagents/core';
import { z } from 'zod';
import type { ChoreographyLogger } from './ChoreographyLogger';

/**
 * The zod schema of {@link LivelockDetectorOptions}, with their defaults.
 *
 * @remarks
 * A message repeated 5 times within 10 seconds, 4 state alternations, no new action for 30 seconds,
 * and a circuit breaker at 3 violations in total. Durations are milliseconds on `scheduler`
 * (default `asyncScheduler`), greater than 0 and at most `MAX_DELAY_MS` (about 24.8 days), or
 * `Infinity`: a window that never closes, or no stall detection. Counts are at most `MAX_COUNT`.
 * `maxRememberedActions` (10,000) bounds the distinct actions remembered per agent: past it, the
 * least recently taken one is forgotten, and taking it again counts as new.
 * `logger` (default `console`) hears listener errors.
 *
 * @example
 * ```ts
 * import { LivelockDetectorOptionsSchema } from '@rxagents/choreography';
 *
 * console.log(LivelockDetectorOptionsSchema.parse({}));
 * // { repeatedMessageThreshold: 5, messageWindowMs: 10000, oscillationThreshold: 4, progressTimeoutMs: 30000, circuitBreakerThreshold: 3, maxRememberedActions: 10000 }
 * ```
 */
export const LivelockDetectorOptionsSchema = z.strictObject({
  repeatedMessageThreshold: configRules.positiveInt().default(5),
  messageWindowMs: configRules.timeoutMs().default(10_000),
  oscillationThreshold: configRules.positiveInt().default(4),
  progressTimeoutMs: configRules.timeoutMs().default(30_000),
  circuitBreakerThreshold: configRules.positiveInt().default(3),
  maxRememberedActions: configRules.positiveInt().default(10_000),
  scheduler: configRules.scheduler().optional(),
  logger: z
    .custom<ChoreographyLogger>((value) => typeof value === 'object' && value !== null && typeof (value as ChoreographyLogger).warn === 'function', {
      error: 'must have a warn(message) method',
    })
    .optional(),
});

/**
 * Settings of a {@link LivelockDetector} and of {@link detectLivelock}; see {@link LivelockDetectorOptionsSchema}.
 *
 * @remarks
 * Every field is optional and has a default (see {@link LivelockDetectorOptionsSchema}). Pass a
 * `scheduler` to read time from a virtual clock in tests.
 *
 * @example
 * ```ts
 * import { VirtualTimeScheduler } from 'rxjs';
 * import { LivelockDetector, type LivelockDetectorOptions } from '@rxagents/choreography';
 *
 * const clock = new VirtualTimeScheduler();
 * const options: LivelockDetectorOptions = { repeatedMessageThreshold: 3, messageWindowMs: 5_000, scheduler: clock };
 * const detector = new LivelockDetector(options);
 * for (let i = 0; i < 3; i += 1) detector.recordMessage('planner', 'Let me re-plan.');
 * console.log(detector.analyze().violations.map((v) => v.type)); // [ 'REPEATED_MESSAGE' ]
 * ```
 */
export type LivelockDetectorOptions = z.input<typeof LivelockDetectorOptionsSchema>;
