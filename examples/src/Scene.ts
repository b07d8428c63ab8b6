/** One scene of `pnpm demo`: a short, self-contained tour of one capability, printed to the terminal. */
export interface Scene {
  /** Short name used on the command line: `pnpm demo <name>`. */
  readonly name: string;
  /** One line shown above the scene's output. */
  readonly title: string;
  /** Runs only when named (`pnpm demo web`), never in the plain `pnpm demo` tour: it serves until stopped. */
  readonly onlyWhenNamed?: boolean;
  /** Runs the scene on the real clock; resolves when it is done. */
  run(): Promise<void>;
}
