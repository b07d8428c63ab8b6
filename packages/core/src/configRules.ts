import type { SchedulerLike } from 'rxjs';
import { z } from 'zod';

/**
 * Reusable zod rules whose messages read well in a {@link ConfigError}.
 *
 * @remarks
 * Each function returns a fresh schema with a `must ...` message, so a failure reads
 * `bufferSize must be a positive integer, got -1`. Packages build their options schemas from these.
 *
 * @example
 * ```ts
 * import { z } from 'zod';
 * import { configRules } from '@rxagents/core';
 *
 * const Options = z.strictObject({
 *   bufferSize: configRules.positiveInt().default(256),
 *   scheduler: configRules.scheduler().optional(),
 * });
 * console.log(Options.parse({}).bufferSize); // 256
 * ```
 */
export const configRules = {
  /** An integer greater than zero. */
  positiveInt: () => z.number({ error: 'must be a positive integer' }).int('must be a positive integer').positive('must be a positive integer'),
  /** An integer of zero or more. */
  nonNegativeInt: () =>
    z.number({ error: 'must be a non-negative integer' }).int('must be a non-negative integer').nonnegative('must be a non-negative integer'),
  /** Any integer (negative values often mean "disabled" in PraisonAI-style settings). */
  int: () => z.number({ error: 'must be an integer' }).int('must be an integer'),
  /** A finite number of zero or more, such as a duration in milliseconds. */
  nonNegativeNumber: () =>
    z.number({ error: 'must be a non-negative number' }).finite('must be a non-negative number').nonnegative('must be a non-negative number'),
  /** A finite number greater than zero, such as a timeout in milliseconds. */
  positiveNumber: () => z.number({ error: 'must be a positive number' }).finite('must be a positive number').positive('must be a positive number'),
  /** A string with at least one character. */
  nonEmptyString: () => z.string({ error: 'must be a non-empty string' }).min(1, 'must be a non-empty string'),
  /** A function. */
  function: <T extends (...args: never[]) => unknown>() =>
    z.custom<T>((value) => typeof value === 'function', { error: 'must be a function' }),
  /** An RxJS scheduler (anything with `now()` and `schedule()`). */
  scheduler: () =>
    z.custom<SchedulerLike>(
      (value) =>
        typeof value === 'object' &&
        value !== null &&
        typeof (value as SchedulerLike).now === 'function' &&
        typeof (value as SchedulerLike).schedule === 'function',
      { error: 'must be an RxJS scheduler (with now() and schedule())' },
    ),
  /** An `AbortSignal`. */
  abortSignal: () =>
    z.custom<AbortSignal>(
      (value) =>
        typeof value === 'object' &&
        value !== null &&
        typeof (value as AbortSignal).aborted === 'boolean' &&
        typeof (value as AbortSignal).addEventListener === 'function',
      { error: 'must be an AbortSignal' },
    ),
} as const;
