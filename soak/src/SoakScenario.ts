import type { SoakSize } from './soakSizes';

/** The one line of figures a scenario reports, and whether they are inside the bound it states. */
export interface SoakResult {
  /** The measured figures, e.g. `peak +412 MB heap+arrayBuffers over 15 runs`. */
  readonly figures: string;
  /** The bound the figures are checked against, with where it comes from, e.g. `<= 68 MB (replayLimit × frame × maxRuns + 64 MB)`. */
  readonly bound: string;
  /** Whether the figures are inside the bound; `'skipped'` when the scenario could not run here (no redis-server). */
  readonly within: boolean | 'skipped';
}

/** One scenario of `pnpm soak`, run in a Node process of its own. */
export interface SoakScenario {
  /** Its name on the command line: `pnpm soak stalled-viewers`. */
  readonly name: string;
  /** Whether it needs `redis-server` (it starts its own); without one it is skipped. */
  readonly needsRedis: boolean;
  /** Runs the scenario at `size`; `log` prints progress lines. */
  run(size: SoakSize, log: (line: string) => void): Promise<SoakResult>;
}
