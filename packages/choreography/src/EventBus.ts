import type { Observable } from 'rxjs';
import type { ChoreographyCoordinator } from './ChoreographyCoordinator';
import type { ChoreographyEvent } from './ChoreographyEvent';

/**
 * The shared event stream a choreography runs on: publish events, observe them, close.
 *
 * @remarks
 * Kept small on purpose so it can sit on a real message broker across processes. The contract the
 * engine relies on: `events$` emits every event published after subscription, in publish order, and
 * completes on `close()`; `publish` after `close()` is ignored. {@link InMemoryEventBus} is the
 * default. {@link ChoreographyEngine} subscribes before it publishes the initial events, and closes
 * the bus when its run ends. A bus shared by engines in several processes adds a `coordinator`
 * ({@link ChoreographyCoordinator}), so that each interaction runs once per run across them all.
 *
 * @example
 * ```ts
 * import { Subject } from 'rxjs';
 * import type { ChoreographyEvent, EventBus } from '@rxagents/choreography';
 *
 * // A bus that logs every event it carries (delivery here is not trampolined, unlike InMemoryEventBus).
 * function loggingBus(): EventBus {
 *   const subject = new Subject<ChoreographyEvent>();
 *   return {
 *     events$: subject.asObservable(),
 *     publish: (event) => {
 *       console.log('event', event.name);
 *       subject.next(event);
 *     },
 *     close: () => subject.complete(),
 *   };
 * }
 * ```
 */
export interface EventBus {
  /** Every event published from now on, in order; completes when the bus closes. */
  readonly events$: Observable<ChoreographyEvent>;
  /** Publishes an event to every current subscriber; ignored once the bus is closed. */
  publish(event: ChoreographyEvent): void;
  /** Completes `events$` and refuses further events. Idempotent. */
  close(): void;
  /**
   * Present on a bus shared by engines in several processes (for example `redisEventBus` from
   * `@rxagents/redis`): the engine then runs in coordinated mode, see {@link ChoreographyCoordinator}.
   * Absent on {@link InMemoryEventBus}.
   */
  readonly coordinator?: ChoreographyCoordinator;
}
