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

/**
 * The most characters one `text-delta` event holds: 65,536 (64 Ki).
 *
 * @remarks
 * A chunk an agent gives that is longer (a whole reply in one piece) is said as several `text-delta`
 * events of at most this many characters each, cut between characters (never inside a surrogate pair),
 * so the deltas' concatenation is still exactly the chunk. A `conflate` delivery never merges deltas past
 * it either. JSON-encoded, a character takes at most 6 characters (`\u0000`), so a delta's event stays
 * under 400,000 characters on any wire: far below what a reader accepts (16 MiB by default for
 * `@rxagents/web`'s `fromEventStream`).
 *
 * @example
 * ```ts
 * import { MAX_DELTA_LENGTH } from '@rxagents/core';
 *
 * console.log(MAX_DELTA_LENGTH); // 65536
 * ```
 */
export const MAX_DELTA_LENGTH = 65_536;

/**
 * The longest text, JSON-encoded, that an event repeats: 1,048,576 characters (1 Mi).
 *
 * @remarks
 * The text fields that repeat what the run says elsewhere stop at this size, so no such event grows with a
 * reply on any wire: `run-end`'s `output`, the `input` of a `run-start` or `call-start` (a chain hands
 * the previous reply on as the next input) and a pattern's `message` `content`. A longer one is left
 * out: `run-end` then has no `output` and says `outputOmitted: true`; a start says `input: ''` and
 * `inputOmitted: true`; a message says `content: ''` and `contentOmitted: true`. The text itself is not
 * lost: an agent's reply is the concatenation of its call's `text-delta`s, and the result of the
 * primitive (the Promise or Observable form) is whole. The length is measured as JSON writes it (a quote
 * or a line break takes two characters).
 *
 * @example
 * ```ts
 * import { MAX_TEXT_FIELD_LENGTH } from '@rxagents/core';
 *
 * console.log(MAX_TEXT_FIELD_LENGTH); // 1048576
 * ```
 */
export const MAX_TEXT_FIELD_LENGTH = 1_048_576;
