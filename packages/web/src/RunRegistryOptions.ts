import { asyncScheduler, type Observable, type SchedulerLike } from 'rxjs';
import * as z from 'zod';
import { configRules, type RunContext, type RunStore } from '@rxagents/core';
import { redactError, type ExposeError } from './redactError';

/**
 * Options of {@link createRunRegistry}.
 *
 * @example
 * ```ts
 * import type { RunRegistryOptions } from '@rxagents/web';
 *
 * const options: RunRegistryOptions = { replayLimit: 5_000, ttlMs: 60_000, maxRuns: 100 };
 * console.log(options.maxRuns); // 100
 * ```
 */
export interface RunRegistryOptions {
  /** How many of a run's latest events are kept for viewers that join late or reconnect. Default 10,000. */
  readonly replayLimit?: number;
  /** How long a finished run stays watchable, in milliseconds. Default 300,000 (5 minutes); `Infinity` keeps it. */
  readonly ttlMs?: number;
  /** How many runs the registry holds at once (finished ones are let go first when it is full). Default 1,000. */
  readonly maxRuns?: number;
  /** Milliseconds between `: ping` comments to a waiting viewer. Default 15,000; `Infinity` for none. */
  readonly heartbeatMs?: number;
  /**
   * How long a viewer may go without reading while events wait for it, in milliseconds, before it is cut
   * off with a `VIEWER_STALLED` error frame ({@link ViewerStalledError}); the run goes on. Default 30,000;
   * `Infinity` never cuts one off.
   */
  readonly stallTimeoutMs?: number;
  /** The clock of `ttlMs`, the heartbeat, `stallTimeoutMs` and the runs started by name. Default `asyncScheduler`. */
  readonly scheduler?: SchedulerLike;
  /**
   * What viewers receive of an error (an `event: error` frame, the `error` of `call-error`, `run-end` and
   * `step` events). Default {@link redactError}: name, code, retryable and a generic message.
   */
  readonly exposeError?: ExposeError;
  /**
   * Makes every run started by name durable: journaled in this store under its run id, served to viewers
   * from its journal (from any `Last-Event-ID`, in pages), and resumed from it after a restart (see
   * {@link DurableRunRegistry}). Default: none, runs live in this process's memory only.
   */
  readonly store?: RunStore;
  /**
   * The code of the runs, by name: `start(name, input)` starts `runs.get(name)(input)`, and a registry
   * with a `store` resumes an unfinished run of the store only when its recorded name is here. Default:
   * none.
   */
  readonly runs?: ReadonlyMap<string, (input: string) => (run: RunContext) => Observable<unknown>>;
  /** With `store`: how long a run's lease lasts unless renewed, in ms (`observeRun`'s `leaseTtlMs`). Default 30,000. */
  readonly leaseTtlMs?: number;
  /**
   * With `store`: the stable identity this registry takes its runs' leases under (`observeRun`'s
   * `leaseOwner`), such as the name of the deployment instance it serves. A registry started again
   * under the same owner (a restart, a replacement pod on another host) takes back at once the runs its
   * previous process held, without waiting for their leases to lapse; `resumeAll()` and the answer route
   * then go on with them. Without it, only a holder that exited on this host is recognised at once.
   * Never give two registries that run at the same time one owner: each would take the other's runs.
   * Default: none.
   */
  readonly leaseOwner?: string;
  /**
   * With `store`: milliseconds between reads of the journal of a run that another process runs (or
   * none does), for a viewer that has read all of it so far. Default 1,000; `Infinity` serves such a run
   * up to what its journal holds and then ends the stream.
   */
  readonly pollMs?: number;
  /**
   * The longest body `handleAnswer` reads, in bytes; a longer one is `413` and reading stops there.
   * Default 65,536 (64 KiB).
   */
  readonly maxAnswerBytes?: number;
  /**
   * With `store`: how long an answer to a durable run waits for its interrupt to be open in this process
   * again, after the registry resumed the run for it, in ms on `scheduler`; past it the answer is refused
   * with `InterruptNotFoundError` (the resumed run did not reach that question again). Default 10,000.
   */
  readonly reopenTimeoutMs?: number;
}

const runsRule = z.custom<ReadonlyMap<string, (input: string) => (run: RunContext) => Observable<unknown>>>(
  (value) => value instanceof Map && [...value].every(([name, make]) => typeof name === 'string' && typeof make === 'function'),
  { error: "must be a Map from run names to functions of the run's input giving its body" },
);

/** The rules of {@link RunRegistryOptions}, checked by {@link createRunRegistry}. */
export const RunRegistryOptionsSchema = z.strictObject({
  store: configRules.runStore().optional(),
  runs: runsRule.default(() => new Map()),
  leaseTtlMs: configRules.leaseTtlMs().optional(),
  leaseOwner: configRules.leaseOwner().optional(),
  pollMs: configRules.timeoutMs().default(1_000),
  replayLimit: configRules.positiveInt().default(10_000),
  ttlMs: configRules.delayMs().default(300_000),
  maxRuns: configRules.positiveInt().default(1_000),
  heartbeatMs: configRules.timeoutMs().default(15_000),
  stallTimeoutMs: configRules.timeoutMs().default(30_000),
  scheduler: configRules.scheduler().default(asyncScheduler),
  exposeError: configRules.function<ExposeError>().default(() => redactError),
  maxAnswerBytes: configRules.positiveInt().default(65_536),
  reopenTimeoutMs: configRules.timeoutMs().default(10_000),
});
