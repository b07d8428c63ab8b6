import type { EventStreamError } from './errors/EventStreamError';

/**
 * Where the connection of a {@link fromEventStream} subscription stands, told to its `onStatus` option
 * each time it changes: what a page shows beside the run ("reconnecting in 4 s...").
 *
 * @remarks
 * - `connected`: the server answered with an event stream. `attempt` is how many reconnections in a row
 *   it took (0 for the first connection, or one that follows an event).
 * - `reconnecting`: the connection dropped (or could not be made: the server is down, restarting, or a
 *   proxy before it answered 502, 503 or 504), and the next try is `attempt` (1 for the first), in
 *   `delayMs`, at `retryAt` (the `scheduler`'s time). `elapsedMs` is the time since the drop, `cause` why
 *   the last try failed.
 * - `gave-up`: the retry budget is spent (`retry.maxElapsedMs` or `retry.maxAttempts`); the
 *   Observable errors with `error` (`EVENT_STREAM_DROPPED`) right after.
 *
 * An event in between resets the count: the next drop is attempt 1 again.
 *
 * @example
 * ```ts
 * import type { EventStreamStatus } from '@rxagents/web/client';
 *
 * const caption = (status: EventStreamStatus): string =>
 *   status.state === 'reconnecting' ? `reconnecting (try ${status.attempt}) in ${Math.ceil(status.delayMs / 1000)} s` : status.state;
 * console.log(caption({ state: 'reconnecting', attempt: 2, delayMs: 1_500, retryAt: 4_500, elapsedMs: 3_000, cause: new Error('down') }));
 * // reconnecting (try 2) in 2 s
 * ```
 */
export type EventStreamStatus =
  | { readonly state: 'connected'; readonly attempt: number }
  | { readonly state: 'reconnecting'; readonly attempt: number; readonly delayMs: number; readonly retryAt: number; readonly elapsedMs: number; readonly cause: unknown }
  | { readonly state: 'gave-up'; readonly attempts: number; readonly elapsedMs: number; readonly error: EventStreamError };
