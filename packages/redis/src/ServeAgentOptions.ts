import { configRules } from '@rxagents/core';
import { asyncScheduler } from 'rxjs';
import { z } from 'zod';

/**
 * The options of {@link serveAgent}, checked by this schema (bad values fail with a `ConfigError`
 * naming the field).
 *
 * @example
 * ```ts
 * import { ServeAgentOptionsSchema } from '@rxagents/redis';
 *
 * console.log(ServeAgentOptionsSchema.parse({}).concurrency); // 4
 * ```
 */
export const ServeAgentOptionsSchema = z
  .strictObject({
    /** The prefix of every Redis key; the same on callers and workers. */
    prefix: configRules.nonEmptyString().default('rxagents'),
    /** How many calls this worker runs at once. */
    concurrency: configRules.positiveInt(10_000).default(4),
    /** A call whose worker has not confirmed it for this long (the worker died or froze) is claimed and run again by another worker, in ms. */
    claimIdleMs: configRules.positiveInt(86_400_000).default(15_000),
    /** How often this worker confirms its running calls, checks their callers' leases and measures Redis's clock, in ms; below `claimIdleMs / 2`. */
    leaseCheckMs: configRules.positiveInt(86_400_000).default(500),
    /** The approximate bound (`MAXLEN ~`) of each reply stream, in entries: a caller that falls further behind fails its call (`REMOTE_REPLY_TRIMMED`). */
    replyMaxLen: configRules.positiveInt().default(100_000),
    /** How long a reply stream and a call's attempt counter outlive their last write, in ms (a caller deletes them when it is done; one whose reader stalls longer fails its call, `REMOTE_REPLY_EXPIRED`). */
    replyTtlMs: configRules.positiveInt(86_400_000 * 30).default(600_000),
    /** The approximate bound (`MAXLEN ~`) of the agent's dead-letter stream, in entries. */
    deadLetterMaxLen: configRules.positiveInt().default(10_000),
    /** This worker's consumer name in the group; unique per process by default. */
    consumer: configRules.nonEmptyString().optional(),
    /** The clock of the lease checks and claims. */
    scheduler: configRules.scheduler().default(asyncScheduler),
    /**
     * Receives Redis failures the worker survives (it reconnects and goes on): of an outage (the client not
     * connected), only the first. Also an answer a caller relayed to an interrupt that the agent's asker
     * refused (`InterruptAnswerError`: the interrupt stays open). Defaults to a process warning (`process.emitWarning`, code
     * `RXAGENTS_REDIS_WORKER`), and then one more when Redis is reachable again.
     */
    onError: configRules.function<(error: unknown) => void>().optional(),
  })
  .refine((options) => options.leaseCheckMs * 2 < options.claimIdleMs, { path: ['leaseCheckMs'], message: 'must be below claimIdleMs / 2' });

/**
 * The options of {@link serveAgent}; every field is optional.
 *
 * @example
 * ```ts
 * import type { ServeAgentOptions } from '@rxagents/redis';
 *
 * const options: ServeAgentOptions = { concurrency: 8, claimIdleMs: 10_000 };
 * console.log(options.concurrency); // 8
 * ```
 */
export type ServeAgentOptions = z.input<typeof ServeAgentOptionsSchema>;

/**
 * A worker serving one agent id, as {@link serveAgent} returns it.
 *
 * @example
 * ```ts
 * import type { ServedAgent } from '@rxagents/redis';
 *
 * export async function shutdown(worker: ServedAgent): Promise<void> {
 *   await worker.drain(); // finish what runs, take nothing new
 * }
 * ```
 */
export interface ServedAgent {
  /** This worker's consumer name in the agent's consumer group. */
  readonly consumer: string;
  /** How many calls run here now. */
  readonly running: number;
  /**
   * Takes no new calls and resolves once the running ones have finished (complete); until then they are
   * confirmed and their callers' leases checked as before, so a cancellation still aborts them.
   */
  drain(): Promise<void>;
  /** Takes no new calls and aborts the running ones, which other workers run again after `claimIdleMs` (close). */
  close(): Promise<void>;
}
