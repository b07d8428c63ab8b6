import { ConfigError, type ConfigIssue, parseConfig, preview, reportUnhandledError } from '@rxagents/core';
import { asyncScheduler, type SchedulerLike } from 'rxjs';
import type { ChoreographyLogger } from './ChoreographyLogger';
import { CircuitBreakerOpenError } from './errors/CircuitBreakerOpenError';
import { type LivelockDetectorOptions, LivelockDetectorOptionsSchema } from './LivelockDetectorOptions';
import type { LivelockListener } from './LivelockListener';
import type { LivelockReport } from './LivelockReport';
import type { LivelockViolation, LivelockViolationType } from './LivelockViolation';
import { RepeatedMessages } from './internal/RepeatedMessages';
import { StateOscillations } from './internal/StateOscillations';

interface ProgressTrack {
  /** The distinct actions taken, least recently taken first, at most `maxRememberedActions`. */
  readonly seen: Set<string>;
  lastProgressAt: number;
  stalled: boolean;
}

/**
 * Watches what agents do and reports livelock: busy agents that make no progress.
 *
 * @remarks
 * A separate tool you feed yourself with {@link LivelockDetector.recordMessage},
 * {@link LivelockDetector.recordStateChange} and {@link LivelockDetector.recordAction}; time is read
 * from `scheduler.now()`, so it is marble-testable. It reports:
 * - `REPEATED_MESSAGE` when an agent records the same message `repeatedMessageThreshold` (5) times
 *   within `messageWindowMs` (10 s, bounds included);
 * - `OSCILLATING_STATE` when an agent's state goes back and forth between two values
 *   `oscillationThreshold` (4) times in a row (A→B→A→B→A is 4 alternations);
 * - `PROGRESS_STALL` when an agent that has recorded actions records no new action (one it never
 *   recorded before, among its last `maxRememberedActions` distinct ones) for `progressTimeoutMs`
 *   (30 s): checked on each of its records and by `analyze()`.
 *
 * After a report its counter starts over, so a persisting symptom is reported again only after it
 * repeats in full. Once `circuitBreakerThreshold` (3) violations have been found in total, the
 * circuit breaker trips: every `record*` call throws {@link CircuitBreakerOpenError} until
 * {@link LivelockDetector.reset}. Listeners hear violations, the trip and resets as they happen.
 *
 * @example
 * ```ts
 * import { LivelockDetector } from '@rxagents/choreography';
 *
 * const detector = LivelockDetector.builder().repeatedMessageThreshold(3).build();
 * detector.addListener({ onViolation: (v) => console.log(v.type, v.detail) });
 * for (let i = 0; i < 3; i += 1) detector.recordMessage('planner', 'Let me re-plan.');
 * // REPEATED_MESSAGE Message repeated 3 times within 10000 ms: "Let me re-plan."
 * console.log(detector.analyze().livelockDetected); // true
 * ```
 */
export class LivelockDetector {
  readonly #options: Required<Omit<LivelockDetectorOptions, 'scheduler' | 'logger'>>;
  readonly #scheduler: SchedulerLike;
  readonly #logger: ChoreographyLogger;
  readonly #listeners = new Set<LivelockListener>();
  readonly #messages: RepeatedMessages;
  readonly #states: StateOscillations;
  #progress = new Map<string, ProgressTrack>();
  #violations: LivelockViolation[] = [];
  #open = false;

  /**
   * Validates the options ({@link LivelockDetectorOptionsSchema}); every one has a default.
   *
   * @throws `ConfigError` when an option breaks a rule.
   */
  constructor(options: LivelockDetectorOptions = {}) {
    const { scheduler, logger, ...thresholds } = parseConfig(LivelockDetectorOptionsSchema, options, 'LivelockDetector options');
    this.#options = thresholds;
    this.#messages = new RepeatedMessages(thresholds.repeatedMessageThreshold, thresholds.messageWindowMs);
    this.#states = new StateOscillations(thresholds.oscillationThreshold);
    this.#scheduler = scheduler ?? asyncScheduler;
    this.#logger = logger ?? console;
  }

  /**
   * Starts a builder with the defaults (listed on {@link LivelockDetectorOptionsSchema}).
   *
   * @example
   * ```ts
   * import { LivelockDetector } from '@rxagents/choreography';
   *
   * const detector = LivelockDetector.builder().progressTimeoutMs(60_000).circuitBreakerThreshold(5).build();
   * ```
   */
  static builder(): LivelockDetectorBuilder {
    return new LivelockDetectorBuilder();
  }

  /** Whether the circuit breaker is open (recording throws until `reset()`). */
  get circuitBreakerOpen(): boolean {
    return this.#open;
  }

  /**
   * Records a message an agent sent.
   *
   * @throws {@link CircuitBreakerOpenError} while the breaker is open; `ConfigError` when an argument is not a string.
   */
  recordMessage(agentId: string, message: string): void {
    checkRecord('recordMessage', agentId, 'message', message);
    const { now, failure } = this.#admit(agentId);
    if (this.#messages.record(agentId, message, now)) {
      const limit = this.#options.repeatedMessageThreshold;
      this.#report('REPEATED_MESSAGE', agentId, `Message repeated ${limit} times within ${this.#options.messageWindowMs} ms: ${preview(message)}`, now);
    }
    if (failure !== undefined) throw failure.error;
  }

  /**
   * Records an agent's new state; recording the current state again is not a change.
   *
   * @throws {@link CircuitBreakerOpenError} while the breaker is open; `ConfigError` when an argument is not a string.
   */
  recordStateChange(agentId: string, state: string): void {
    checkRecord('recordStateChange', agentId, 'state', state);
    const { now, failure } = this.#admit(agentId);
    const alternated = this.#states.record(agentId, state);
    if (alternated !== undefined) {
      const [from, to] = alternated;
      this.#report('OSCILLATING_STATE', agentId, `State alternated ${this.#options.oscillationThreshold} times between ${preview(from)} and ${preview(to)}`, now);
    }
    if (failure !== undefined) throw failure.error;
  }

  /**
   * Records an action an agent took; an action it never took before counts as progress.
   *
   * @throws {@link CircuitBreakerOpenError} while the breaker is open; `ConfigError` when an argument is not a string.
   */
  recordAction(agentId: string, action: string): void {
    checkRecord('recordAction', agentId, 'action', action);
    if (this.#open) throw new CircuitBreakerOpenError(this.#violations.length);
    const now = this.#scheduler.now();
    let track = this.#progress.get(agentId);
    if (track === undefined) {
      track = { seen: new Set(), lastProgressAt: now, stalled: false };
      this.#progress.set(agentId, track);
    }
    const { seen } = track;
    if (seen.delete(action)) seen.add(action);
    else {
      seen.add(action);
      // A Set iterates in insertion order and a repeat is re-inserted: the first is the least recent.
      if (seen.size > this.#options.maxRememberedActions) seen.delete(seen.values().next().value as string);
      track.lastProgressAt = now;
      track.stalled = false;
    }
    this.#checkStall(agentId, track, now);
  }

  /**
   * Checks every agent for a progress stall now, and reports all violations since the last reset.
   * Never throws, even with the breaker open, or when a listener and the logger throw (the logger's
   * error is then reported the way RxJS reports unhandled errors, `config.onUnhandledError`).
   */
  analyze(): LivelockReport {
    const now = this.#scheduler.now();
    let failure: { readonly error: unknown } | undefined;
    for (const [agentId, track] of this.#progress) {
      try {
        this.#checkStall(agentId, track, now);
      } catch (error) {
        // Only the logger's error reaches here (a listener threw and the logger too): every agent is still
        // checked, and the caller, who asked for a report, gets it; the error goes where RxJS reports them.
        failure ??= { error };
      }
    }
    this.#messages.forgetBefore(now);
    if (failure !== undefined) reportUnhandledError(failure.error);
    return { livelockDetected: this.#violations.length > 0, violations: [...this.#violations], circuitBreakerOpen: this.#open };
  }

  /**
   * How many distinct (agent, message) pairs are remembered for `REPEATED_MESSAGE`: those recorded
   * within the last `messageWindowMs`, as older ones are forgotten when the next message arrives.
   */
  get trackedMessages(): number {
    return this.#messages.size;
  }

  /**
   * When `agentId` will count as stalled if it takes no new action (scheduler time), or `undefined`
   * when it has recorded no action or is already reported as stalled.
   */
  stallDeadline(agentId: string): number | undefined {
    const track = this.#progress.get(agentId);
    return track === undefined || track.stalled ? undefined : track.lastProgressAt + this.#options.progressTimeoutMs;
  }

  /** Adds a listener (an object, or a function that hears violations); returns a function removing it. */
  addListener(listener: LivelockListener | ((violation: LivelockViolation) => void)): () => void {
    const entry: LivelockListener = typeof listener === 'function' ? { onViolation: listener } : listener;
    this.#listeners.add(entry);
    return () => {
      this.#listeners.delete(entry);
    };
  }

  /** Closes the breaker and forgets every violation and everything recorded. */
  reset(): void {
    this.#messages.clear();
    this.#states.clear();
    this.#progress = new Map();
    this.#violations = [];
    this.#open = false;
    const failure = this.#notify((listener) => listener.onReset?.());
    if (failure !== undefined) throw failure.error;
  }

  /**
   * Checks the breaker and the agent's progress before a record. A logger that throws while a stall is
   * reported does not stop the record: its error comes back as `failure`, thrown once the record is done.
   */
  #admit(agentId: string): { readonly now: number; readonly failure: { readonly error: unknown } | undefined } {
    if (this.#open) throw new CircuitBreakerOpenError(this.#violations.length);
    const now = this.#scheduler.now();
    const progress = this.#progress.get(agentId);
    if (progress === undefined) return { now, failure: undefined };
    try {
      this.#checkStall(agentId, progress, now);
      return { now, failure: undefined };
    } catch (error) {
      return { now, failure: { error } };
    }
  }

  #checkStall(agentId: string, track: ProgressTrack, now: number): void {
    const idle = now - track.lastProgressAt;
    if (track.stalled || idle < this.#options.progressTimeoutMs) return;
    track.stalled = true;
    this.#report('PROGRESS_STALL', agentId, `No new action for ${idle} ms (limit ${this.#options.progressTimeoutMs} ms)`, now);
  }

  #report(type: LivelockViolationType, agentId: string, detail: string, timestamp: number): void {
    const violation: LivelockViolation = Object.freeze({ type, agentId, detail, timestamp });
    this.#violations.push(violation);
    const trips = !this.#open && this.#violations.length >= this.#options.circuitBreakerThreshold;
    const heard = this.#notify((listener) => listener.onViolation?.(violation));
    let opened: { readonly error: unknown } | undefined;
    if (trips) {
      this.#open = true;
      const violations = [...this.#violations];
      opened = this.#notify((listener) => listener.onCircuitBreakerOpen?.(violations));
    }
    const failure = heard ?? opened;
    if (failure !== undefined) throw failure.error;
  }

  /**
   * Calls every listener; a listener's error goes to the logger. Returns the first error the logger
   * itself threw, for the caller to throw once its state is complete: it is never swallowed.
   */
  #notify(call: (listener: LivelockListener) => void): { readonly error: unknown } | undefined {
    let failure: { readonly error: unknown } | undefined;
    for (const listener of [...this.#listeners]) {
      try {
        call(listener);
      } catch (error) {
        try {
          this.#logger.warn('LivelockDetector: a listener threw; recording continues.', error);
        } catch (loggerError) {
          failure ??= { error: loggerError };
        }
      }
    }
    return failure;
  }
}

/** A record's arguments are strings: anything else would be counted as something else (`undefined` as a message). */
function checkRecord(method: string, agentId: unknown, field: string, value: unknown): void {
  const issues: ConfigIssue[] = [];
  if (typeof agentId !== 'string') issues.push({ path: 'agentId', rule: 'must be a string', received: agentId });
  if (typeof value !== 'string') issues.push({ path: field, rule: 'must be a string', received: value });
  if (issues.length > 0) throw new ConfigError(`LivelockDetector.${method}`, issues);
}

/**
 * Builds a {@link LivelockDetector}; get one from {@link LivelockDetector.builder}.
 *
 * @remarks
 * Every setting starts at its default (5 repeats within 10 s, 4 alternations, 30 s without a new
 * action, breaker at 3); `build()` validates and
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
  #options: LivelockDetectorOptions = {};

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
    return new LivelockDetector({ ...this.#options });
  }

  #set(options: LivelockDetectorOptions): this {
    this.#options = { ...this.#options, ...options };
    return this;
  }
}
