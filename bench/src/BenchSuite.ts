/** A figure a suite reports, with the bar it should meet, if any. */
export interface BenchFigure {
  readonly value: number;
  /** What the figure is, with its unit, e.g. `items/s of ours over raw Subject.next`. */
  readonly label: string;
  /** The bar, e.g. `>= 0.5`; printed beside the figure with whether it is met. */
  readonly bar?: { readonly op: '>=' | '<=' | '<' | '>'; readonly limit: number };
}

/** One benchmark suite of `pnpm bench`: measures, logs progress lines, returns its figures. */
export interface BenchSuite {
  /** Name used on the command line: `pnpm bench <name>`. */
  readonly name: string;
  /** Runs the measurements. `log` prints human-readable lines (silenced under `--json`). */
  run(log: (line: string) => void): Promise<Record<string, BenchFigure>>;
}
