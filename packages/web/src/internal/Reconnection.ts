import type { SchedulerLike } from 'rxjs';
import type { CheckedEventStreamRetry } from '../EventStreamRetry';

/** The next reconnection planned after a drop. */
export interface PlannedReconnection {
  readonly attempt: number;
  readonly delayMs: number;
  readonly retryAt: number;
  readonly elapsedMs: number;
}

/**
 * The reconnections in a row of one `fromEventStream` subscription: how many were tried since the last
 * event, since when, and how long the next one waits (backoff, cap, jitter, budget).
 */
export class Reconnection {
  #attempts = 0;
  #droppedAt = 0;

  constructor(
    private readonly retry: CheckedEventStreamRetry,
    private readonly scheduler: SchedulerLike,
  ) {}

  /** Reconnections tried since the last event. */
  get attempts(): number {
    return this.#attempts;
  }

  /** Milliseconds since the drop that started the reconnections in a row (0 before any). */
  get elapsedMs(): number {
    return this.#attempts === 0 ? 0 : Math.max(0, this.scheduler.now() - this.#droppedAt);
  }

  /** An event arrived: the next drop starts over from the first delay, with a whole budget. */
  reset(): void {
    this.#attempts = 0;
  }

  /** Plans the next reconnection after a drop, or says `undefined` when the budget is spent. */
  next(): PlannedReconnection | undefined {
    const now = this.scheduler.now();
    if (this.#attempts === 0) this.#droppedAt = now;
    const elapsedMs = Math.max(0, now - this.#droppedAt);
    const { delayMs, maxDelayMs, factor, jitter, random, maxAttempts, maxElapsedMs } = this.retry;
    if (this.#attempts >= maxAttempts || elapsedMs >= maxElapsedMs) return undefined;
    // factor^n overflows to Infinity long before a count runs out; the cap keeps the delay finite.
    const backoff = Math.min(maxDelayMs, delayMs * factor ** this.#attempts);
    const drawn = Math.round(backoff * (1 - jitter * unit(random())));
    // The last try is moved to the end of the budget rather than given up early.
    const wait = Math.min(drawn, maxElapsedMs - elapsedMs);
    this.#attempts++;
    return { attempt: this.#attempts, delayMs: wait, retryAt: now + wait, elapsedMs };
  }
}

/** A random draw kept in [0, 1]: a source that returns something else cannot make a delay negative or longer. */
function unit(value: number): number {
  return Number.isFinite(value) ? Math.min(1, Math.max(0, value)) : 0;
}
