import { ConfigError } from '@rxagents/core';
import { Observable } from 'rxjs';
import type { ChoreographyEvent } from './ChoreographyEvent';
import type { EventBus } from './EventBus';
import { choreographyEventIssue } from './choreographyEventIssue';
import { Subscribers } from './internal/Subscribers';

/**
 * The default {@link EventBus}: in-process, synchronous, trampolined.
 *
 * @remarks
 * `publish` appends the event to a queue and, unless a delivery is already under way, delivers the
 * queue to every subscriber before returning. An event published from inside a subscriber (an agent
 * that answers synchronously and emits the next event) waits for the current delivery to finish
 * instead of recursing, so a chain of 10,000 instant interactions uses constant stack. Each event costs
 * O(subscribers). Events published while nobody subscribes are lost, as with a `Subject`.
 *
 * @example
 * ```ts
 * import { InMemoryEventBus } from '@rxagents/choreography';
 *
 * const bus = new InMemoryEventBus();
 * bus.events$.subscribe((event) => console.log(event.name));
 * bus.publish({ name: 'start' }); // start
 * bus.close();
 * ```
 */
export class InMemoryEventBus implements EventBus {
  readonly #subscribers = new Subscribers<ChoreographyEvent>();
  #queue: ChoreographyEvent[] = [];
  #head = 0;
  #delivering = false;
  #closed = false;

  /** Every event published from now on; completes on {@link InMemoryEventBus.close}. */
  readonly events$: Observable<ChoreographyEvent> = new Observable<ChoreographyEvent>((subscriber) => {
    if (this.#closed) {
      subscriber.complete();
      return undefined;
    }
    return this.#subscribers.add(subscriber);
  });

  /** Whether {@link InMemoryEventBus.close} has been called. */
  get closed(): boolean {
    return this.#closed;
  }

  /**
   * Queues the event and delivers the queue, unless a delivery is already running.
   *
   * @throws {@link @rxagents/core!ConfigError | ConfigError} when `event` is malformed (no object, a `name`
   * that is no non-blank string, an `output`, `input`, `interactionId` or `agentId` that is no string);
   * nothing is delivered then.
   */
  publish(event: ChoreographyEvent): void {
    const malformed = choreographyEventIssue(event);
    if (malformed !== undefined) throw new ConfigError('InMemoryEventBus.publish event', [malformed]);
    if (this.#closed) return;
    this.#queue.push(event);
    if (this.#delivering) return;
    this.#delivering = true;
    try {
      while (this.#head < this.#queue.length && !this.#closed) {
        const next = this.#queue[this.#head] as ChoreographyEvent;
        this.#head += 1;
        // Each event goes to the subscribers there when its delivery starts, as a copy would.
        this.#subscribers.next(next);
      }
    } finally {
      this.#queue = [];
      this.#head = 0;
      this.#delivering = false;
    }
  }

  /** Drops queued events, completes every subscriber and refuses further events. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#queue = [];
    this.#head = 0;
    this.#subscribers.complete();
  }
}
