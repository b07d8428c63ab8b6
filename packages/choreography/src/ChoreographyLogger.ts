/**
 * Where a {@link ChoreographyEngine} or {@link LivelockDetector} reports warnings. `console` fits.
 *
 * @example
 * ```ts
 * import type { ChoreographyLogger } from '@rxagents/choreography';
 *
 * const warnings: string[] = [];
 * const logger: ChoreographyLogger = { warn: (message) => warnings.push(message) };
 * ```
 */
export interface ChoreographyLogger {
  /** Reports something worth attention that does not stop the work, such as a cycle in a spec. */
  warn(message: string, ...details: unknown[]): void;
}
