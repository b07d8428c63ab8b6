/**
 * The longest delay, in milliseconds, that a timer can wait: 2^31 - 1 (about 24.8 days).
 *
 * @remarks
 * Node's and browsers' timers fire a longer delay after 1 ms, so every timer-valued option in rxagents
 * refuses a larger finite value with a `ConfigError` and accepts `Infinity` for "never" (see
 * `configRules.timeoutMs` and `configRules.delayMs`).
 *
 * @example
 * ```ts
 * import { MAX_DELAY_MS } from '@rxagents/core';
 *
 * console.log(MAX_DELAY_MS / 86_400_000); // 24.855...
 * ```
 */
export const MAX_DELAY_MS = 2_147_483_647;

/**
 * The default upper bound of a count option (buffer sizes, thresholds, limits): 2^31 - 1.
 *
 * @remarks
 * Options whose implementation can honour less (for example a buffer allocated up front) use a
 * smaller bound of their own and say so in their documentation.
 *
 * @example
 * ```ts
 * import { MAX_COUNT } from '@rxagents/core';
 *
 * console.log(MAX_COUNT); // 2147483647
 * ```
 */
export const MAX_COUNT = 2_147_483_647;
