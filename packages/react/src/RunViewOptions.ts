import type { SchedulerLike } from 'rxjs';
import * as z from 'zod';
import { configRules } from '@rxagents/core';
import type { EventStreamRetry } from '@rxagents/web/client';

/**
 * Options of {@link useRunView}, {@link usePendingInterrupts} and {@link createRunViewStore}.
 *
 * @remarks
 * `fetch`, `retry`, `maxFrameLength` and `scheduler` are `fromEventStream`'s, used for a URL, a
 * `Request` or a `Response` (an Observable source is subscribed as it is). `frameScheduler` paces the
 * renders of every source.
 *
 * @example
 * ```ts
 * import { queueScheduler } from 'rxjs';
 * import type { RunViewOptions } from '@rxagents/react';
 *
 * // Reconnect for at most a minute, from a quarter of a second apart; render every view (no pacing), for a test.
 * const options: RunViewOptions = { retry: { delayMs: 250, maxElapsedMs: 60_000 }, frameScheduler: queueScheduler };
 * console.log(options.retry?.maxElapsedMs); // 60000
 * ```
 */
export interface RunViewOptions {
  /** The `fetch` of the stream (for credentials, headers or tests). Default `globalThis.fetch`. */
  readonly fetch?: typeof fetch;
  /** Reconnection after a dropped connection. Default `fromEventStream`'s: from 1 s apart, doubling up to 5 s, for 5 minutes. */
  readonly retry?: EventStreamRetry;
  /** The most characters one frame of the stream may hold. Default `fromEventStream`'s, 16,777,216. */
  readonly maxFrameLength?: number;
  /** The clock of the reconnection delay. Default `asyncScheduler`. */
  readonly scheduler?: SchedulerLike;
  /**
   * Paces what the component sees: the views that arrive before the next task of this scheduler are
   * shown as one (the latest), so a run streaming hundreds of tokens a second renders at most once per
   * frame. Default: `animationFrameScheduler` where the platform has `requestAnimationFrame` (a page),
   * else `asapScheduler`. `queueScheduler` shows every view as it arrives.
   */
  readonly frameScheduler?: SchedulerLike;
}

// A reconnection that waits forever would neither resume nor give up: `maxAttempts: 0` is how not to reconnect.
const finiteDelayMs = () => configRules.delayMs().refine((ms) => ms !== Infinity, 'must be a finite number of milliseconds (maxAttempts: 0 never reconnects)');

/**
 * The rules of {@link RunViewOptions}, checked when a store is made (by the hooks, when their source changes).
 *
 * @example
 * ```ts
 * import { RunViewOptionsSchema } from '@rxagents/react';
 *
 * const checked = RunViewOptionsSchema.safeParse({ retry: { maxAttempts: -1 } });
 * console.log(checked.success); // false
 * ```
 */
export const RunViewOptionsSchema = z.strictObject({
  fetch: configRules.function<typeof fetch>().optional(),
  retry: z
    .strictObject({
      delayMs: finiteDelayMs().optional(),
      maxDelayMs: finiteDelayMs().optional(),
      factor: z.number({ error: 'must be a number from 1 to 1000' }).min(1, 'must be a number from 1 to 1000').max(1_000, 'must be a number from 1 to 1000').optional(),
      jitter: z.number({ error: 'must be a number from 0 to 1' }).min(0, 'must be a number from 0 to 1').max(1, 'must be a number from 0 to 1').optional(),
      random: configRules.function<() => number>().optional(),
      maxAttempts: z.union([configRules.nonNegativeInt(), z.literal(Infinity)], { error: 'must be a non-negative integer, or Infinity for no limit' }).optional(),
      maxElapsedMs: configRules.delayMs().optional(),
    })
    .optional(),
  maxFrameLength: configRules.positiveInt().optional(),
  scheduler: configRules.scheduler().optional(),
  frameScheduler: configRules.scheduler().optional(),
});
