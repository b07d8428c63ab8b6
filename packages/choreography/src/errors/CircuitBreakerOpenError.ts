import { CoordinationError } from '@rxagents/core';

/**
 * A {@link LivelockDetector}'s circuit breaker is open: recording is refused until `reset()`.
 *
 * @remarks
 * The breaker trips once `circuitBreakerThreshold` violations have been found in total. From then on
 * `recordMessage`, `recordStateChange` and `recordAction` throw this error, and the
 * {@link detectLivelock} operator errors with it, so a livelocked flow stops instead of spinning.
 *
 * @example
 * ```ts
 * import { CircuitBreakerOpenError } from '@rxagents/choreography';
 *
 * const error = new CircuitBreakerOpenError(3);
 * console.log(error.message); // Livelock circuit breaker is open after 3 violations; call reset() to record again
 * ```
 */
export class CircuitBreakerOpenError extends CoordinationError {
  /** How many violations had been found when the breaker tripped. */
  readonly violationCount: number;

  constructor(violationCount: number) {
    super('CIRCUIT_BREAKER_OPEN', `Livelock circuit breaker is open after ${violationCount} violations; call reset() to record again`, {
      retryable: false,
      context: { violationCount },
    });
    this.violationCount = violationCount;
  }
}
