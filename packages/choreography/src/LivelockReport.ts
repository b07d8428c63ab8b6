import type { LivelockViolation } from './LivelockViolation';

/**
 * What {@link LivelockDetector.analyze} returns.
 *
 * @example
 * ```ts
 * import { LivelockDetector } from '@rxagents/choreography';
 *
 * const report = new LivelockDetector().analyze();
 * console.log(report.livelockDetected, report.violations.length, report.circuitBreakerOpen); // false 0 false
 * ```
 */
export interface LivelockReport {
  /** Whether any violation has been found since the last reset. */
  readonly livelockDetected: boolean;
  /** Every violation since the last reset, oldest first. */
  readonly violations: readonly LivelockViolation[];
  /** Whether recording is refused until `reset()`. */
  readonly circuitBreakerOpen: boolean;
}
