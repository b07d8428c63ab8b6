import type { LivelockViolation } from './LivelockViolation';

/**
 * Hears a {@link LivelockDetector}'s findings as they happen. Every method is optional.
 *
 * @remarks
 * A listener that throws does not break recording: the error is reported to the detector's
 * `logger` and the other listeners still run. If the logger throws as well, the detector finishes its
 * work (every listener called, the breaker tripped when due) and then the `record*` or `reset()` call
 * throws the logger's error, so the failure is never silent.
 *
 * @example
 * ```ts
 * import { LivelockDetector, type LivelockListener } from '@rxagents/choreography';
 *
 * const listener: LivelockListener = {
 *   onViolation: (violation) => console.log(violation.type, violation.agentId),
 *   onCircuitBreakerOpen: (violations) => console.log(`breaker open after ${violations.length}`),
 * };
 * const remove = new LivelockDetector().addListener(listener);
 * remove();
 * ```
 */
export interface LivelockListener {
  /** A violation was found. */
  onViolation?(violation: LivelockViolation): void;
  /** The circuit breaker tripped; recording throws until `reset()`. */
  onCircuitBreakerOpen?(violations: readonly LivelockViolation[]): void;
  /** `reset()` was called. */
  onReset?(): void;
}
