/**
 * How {@link fromEventStream} reconnects after a dropped connection: exponential backoff with a cap and
 * jitter, within a time budget.
 *
 * @remarks
 * The n-th reconnection in a row waits `min(maxDelayMs, delayMs × factor^(n-1))`, less a random share of
 * up to `jitter` of it (drawn from `random`), so pages that lost one server do not all come back in the
 * same millisecond. It gives up when the next reconnection would start more than `maxElapsedMs` after
 * the connection dropped (the last one is moved to the budget's end), or after `maxAttempts`
 * reconnections, whichever comes first. An event resets all of it: the next drop starts again from
 * `delayMs`, with a whole budget. The defaults (1 s, 2 s, 4 s, then every 5 s, for 5 minutes) carry a
 * page through a server's restart without the user doing anything.
 *
 * @example
 * ```ts
 * import type { EventStreamRetry } from '@rxagents/web/client';
 *
 * // Try every 2 s, without jitter, for at most one minute.
 * const retry: EventStreamRetry = { delayMs: 2_000, factor: 1, jitter: 0, maxElapsedMs: 60_000 };
 * console.log(retry.maxElapsedMs); // 60000
 * ```
 */
export interface EventStreamRetry {
  /** Milliseconds before the first reconnection, finite. Default 1,000. */
  readonly delayMs?: number;
  /** The longest a delay grows to, finite and at least `delayMs`. Default 5,000 (or `delayMs`, when that is longer). */
  readonly maxDelayMs?: number;
  /** How much each delay grows over the one before, at least 1 (1 keeps them equal). Default 2. */
  readonly factor?: number;
  /** The share of each delay that is random, from 0 to 1: a delay `d` waits from `d × (1 - jitter)` to `d`. Default 0.5. */
  readonly jitter?: number;
  /** Where the jitter comes from: a number from 0 (inclusive) to 1 (exclusive) per delay. Default `Math.random`; give your own for a test. */
  readonly random?: () => number;
  /** Reconnections in a row without an event in between before giving up; 0 never reconnects. Default: no limit (`maxElapsedMs` decides). */
  readonly maxAttempts?: number;
  /** Milliseconds after a drop during which it keeps reconnecting; `Infinity` never gives up. Default 300,000 (5 minutes). */
  readonly maxElapsedMs?: number;
}

/** {@link EventStreamRetry} with every default filled in. */
export interface CheckedEventStreamRetry {
  readonly delayMs: number;
  readonly maxDelayMs: number;
  readonly factor: number;
  readonly jitter: number;
  readonly random: () => number;
  readonly maxAttempts: number;
  readonly maxElapsedMs: number;
}

/** The defaults of {@link EventStreamRetry}: a minute-long restart of the server is carried through. */
export const RETRY_DEFAULTS = Object.freeze({ delayMs: 1_000, maxDelayMs: 5_000, factor: 2, jitter: 0.5, maxAttempts: Infinity, maxElapsedMs: 300_000 });
