import type { SchedulerLike } from 'rxjs';
import type { ChoreographyLogger } from './ChoreographyLogger';
import type { LivelockDetector } from './LivelockDetector';
import type { LivelockDetectorOptions } from './LivelockDetectorOptions';

/**
 * Builds a {@link LivelockDetector}; get one from {@link LivelockDetector.builder}.
 *
 * @remarks
 * Every setting starts at its default, that of the Java coordination library these APIs follow (5
 * repeats within 10 s, 4 alternations, 30 s without a new action, breaker at 3); `build()` validates and
 * throws `ConfigError` on a bad value.
 *
 * @example
 * ```ts
 * import { LivelockDetector } from '@rxagents/choreography';
 *
 * const detector = LivelockDetector.builder()
 *   .repeatedMessageThreshold(3)
 *   .messageWindowMs(5_000)
 *   .oscillationThreshold(6)
 *   .progressTimeoutMs(60_000)
 *   .circuitBreakerThreshold(2)
 *   .build();
 * ```
 */
export class LivelockDetectorBuilder {
  readonly #create: (options: LivelockDetectorOptions) => LivelockDetector;
  #options: LivelockDetectorOptions = {};

  /** @internal Use {@link LivelockDetector.builder}. */
  constructor(create: (options: LivelockDetectorOptions) => LivelockDetector) {
    this.#create = create;
  }

  /** How many identical messages within the window make a `REPEATED_MESSAGE`. Default 5. */
  repeatedMessageThreshold(count: number): this {
    return this.#set({ repeatedMessageThreshold: count });
  }

  /** The window for repeated messages, in ms. Default 10,000. */
  messageWindowMs(ms: number): this {
    return this.#set({ messageWindowMs: ms });
  }

  /** How many back-and-forth state changes make an `OSCILLATING_STATE`. Default 4. */
  oscillationThreshold(count: number): this {
    return this.#set({ oscillationThreshold: count });
  }

  /** How long without a new action makes a `PROGRESS_STALL`, in ms. Default 30,000. */
  progressTimeoutMs(ms: number): this {
    return this.#set({ progressTimeoutMs: ms });
  }

  /** How many violations in total trip the circuit breaker. Default 3. */
  circuitBreakerThreshold(count: number): this {
    return this.#set({ circuitBreakerThreshold: count });
  }

  /** How many distinct actions are remembered per agent (the least recent is forgotten first). Default 10,000. */
  maxRememberedActions(count: number): this {
    return this.#set({ maxRememberedActions: count });
  }

  /** The clock. Default `asyncScheduler`. */
  scheduler(scheduler: SchedulerLike): this {
    return this.#set({ scheduler });
  }

  /** Where listener errors are reported. Default `console`. */
  logger(logger: ChoreographyLogger): this {
    return this.#set({ logger });
  }

  /** Validates and returns the detector; throws `ConfigError` on a bad setting. */
  build(): LivelockDetector {
    return this.#create({ ...this.#options });
  }

  #set(options: LivelockDetectorOptions): this {
    this.#options = { ...this.#options, ...options };
    return this;
  }
}
