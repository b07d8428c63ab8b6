/** Every size figure of the scenarios; `pnpm soak` runs {@link FULL}, `pnpm soak --ci` (or `SOAK_SIZE=ci`) {@link CI}. */
export interface SoakSize {
  readonly name: 'full' | 'ci';
  /** The longest a scenario's process may take before it is killed and counted as failed, in ms. */
  readonly scenarioCapMs: number;
  readonly stalled: {
    /** Runs started one after the other, each with one viewer that connects and never reads. */
    readonly runs: number;
    /** Text deltas per run, each `deltaBytes` long. */
    readonly deltas: number;
    readonly deltaBytes: number;
    readonly maxRuns: number;
    readonly ttlMs: number;
    readonly replayLimit: number;
    /** The registry's `stallTimeoutMs`: a viewer that reads nothing for that long while events wait is cut off. */
    readonly stallTimeoutMs: number;
    /** Allowed on top of replayLimit × frame × maxRuns (the heap's own noise, code, buffers of the sockets). */
    readonly slackMB: number;
  };
  readonly late: {
    /** Text deltas of the one finished run, each `deltaBytes` long. */
    readonly deltas: number;
    readonly deltaBytes: number;
    /** Late viewers that join the finished run at once, each reading one socket chunk every `readPauseMs`. */
    readonly viewers: number;
    readonly readPauseMs: number;
    /** How long the viewers read before they are closed, in ms. */
    readonly readMs: number;
    /** Allowed on top of one copy of the log. */
    readonly slackMB: number;
  };
  readonly callerStall: {
    readonly leaseMs: number;
    /** How long the caller's event loop is blocked, in ms (longer than `leaseMs`). */
    readonly blockMs: number;
    /** How long the caller is watched after its loop resumes, in ms. */
    readonly watchMs: number;
    /** Allowed on top of 2 × leaseMs for the caller to get its error after it resumes, in ms. */
    readonly slackMs: number;
  };
  readonly killedWorker: {
    readonly workers: number;
    readonly concurrency: number;
    readonly claimIdleMs: number;
    /** How long one call runs on a worker, in ms. */
    readonly callMs: number;
    /** Calls kept in flight by the caller (more than the workers' slots, so every worker is always busy). */
    readonly inFlight: number;
    /** How long new calls keep coming after the kill, in ms. */
    readonly loadAfterKillMs: number;
    /** Allowed on top of 3 × claimIdleMs for an orphaned call to start again, in ms. */
    readonly slackMs: number;
  };
  readonly registryStall: {
    /** Runs waiting for an answer in each round (answer before, during, after the stall). */
    readonly runsPerTiming: number;
    /** The registry's `leaseTtlMs`; each stall blocks its event loop for three times it. */
    readonly leaseTtlMs: number;
    /** How long a round's runs are given to complete after their answers, in ms. */
    readonly watchMs: number;
  };
  readonly takeover: {
    /** Takeovers of a file-store run, each by a process of its own. */
    readonly trials: number;
    /** The paused process's lease, in ms: the new holder takes the run once it lapses. */
    readonly ttlMs: number;
  };
}

export const FULL: SoakSize = {
  name: 'full',
  scenarioCapMs: 180_000,
  stalled: { runs: 15, deltas: 30_000, deltaBytes: 1_024, maxRuns: 3, ttlMs: 300, replayLimit: 1_000, stallTimeoutMs: 1_000, slackMB: 48 },
  late: { deltas: 24_000, deltaBytes: 1_024, viewers: 40, readPauseMs: 100, readMs: 8_000, slackMB: 48 },
  callerStall: { leaseMs: 1_000, blockMs: 3_000, watchMs: 15_000, slackMs: 1_000 },
  killedWorker: { workers: 3, concurrency: 2, claimIdleMs: 2_000, callMs: 800, inFlight: 12, loadAfterKillMs: 20_000, slackMs: 1_000 },
  registryStall: { runsPerTiming: 10, leaseTtlMs: 200, watchMs: 15_000 },
  takeover: { trials: 10, ttlMs: 1_000 },
};

export const CI: SoakSize = {
  name: 'ci',
  scenarioCapMs: 45_000,
  stalled: { runs: 5, deltas: 12_000, deltaBytes: 1_024, maxRuns: 2, ttlMs: 200, replayLimit: 500, stallTimeoutMs: 500, slackMB: 24 },
  late: { deltas: 4_000, deltaBytes: 1_024, viewers: 10, readPauseMs: 100, readMs: 2_500, slackMB: 16 },
  callerStall: { leaseMs: 500, blockMs: 1_500, watchMs: 3_000, slackMs: 1_000 },
  killedWorker: { workers: 3, concurrency: 2, claimIdleMs: 1_000, callMs: 500, inFlight: 12, loadAfterKillMs: 6_000, slackMs: 1_000 },
  registryStall: { runsPerTiming: 4, leaseTtlMs: 150, watchMs: 10_000 },
  takeover: { trials: 4, ttlMs: 1_000 },
};

/** The size the command line (`--ci`, `--full`) or `SOAK_SIZE` (`ci`, `full`) asks for; full by default. */
export function soakSizeOf(args: readonly string[], env: NodeJS.ProcessEnv): SoakSize {
  if (args.includes('--ci')) return CI;
  if (args.includes('--full')) return FULL;
  const named = env.SOAK_SIZE;
  if (named === undefined || named === '' || named === 'full') return FULL;
  if (named === 'ci') return CI;
  throw new Error(`SOAK_SIZE must be "ci" or "full", not ${JSON.stringify(named)}`);
}
