import type { Observable } from 'rxjs';
import type { ChoreographyEvent } from './ChoreographyEvent';
import type { StepResult } from './ChoreographyResult';

/**
 * One entry of a shared run, as every engine of the run reads it, in the same order.
 *
 * @remarks
 * `id` is the entry's position in the shared log (a Redis stream entry id, for example), unique within
 * the run. An `event` entry carries a published event. A `step` entry carries the step of one
 * interaction and, when it succeeded and emits an event, that event (`emitted`): step and event are one
 * entry, so no engine ever sees one without the other. A `timed-out` entry says an engine's timeout
 * passed: the run ends for every engine there.
 *
 * @example
 * ```ts
 * import type { CoordinatedEntry } from '@rxagents/choreography';
 *
 * const entry: CoordinatedEntry = { kind: 'event', id: '1718000000000-0', event: { name: 'start', input: 'a topic' } };
 * console.log(entry.kind); // event
 * ```
 */
export type CoordinatedEntry =
  | { readonly kind: 'event'; readonly id: string; readonly event: ChoreographyEvent }
  | { readonly kind: 'step'; readonly id: string; readonly step: StepResult; readonly emitted?: ChoreographyEvent }
  | { readonly kind: 'timed-out'; readonly id: string };

/**
 * What an {@link EventBus} shared by engines in several processes adds so that each interaction runs
 * exactly once per run: one shared order, claims, and steps recorded for everyone.
 *
 * @remarks
 * An engine whose bus has a `coordinator` runs in coordinated mode:
 *
 * - It reads `entries$` instead of `events$`, and routes every event to every interaction of the spec,
 *   so every engine knows which interactions are triggered. The entries must reach every engine in the
 *   same order (a shared log): that is what makes every engine reach the same steps and result.
 * - For each triggered interaction whose agent it hosts, it subscribes to `claim(eventId,
 *   interactionId)`; it calls the agent when the claim emits `true`, aborts the call when it emits
 *   `false` (the claim was lost to another engine), and unsubscribes once the interaction's step is
 *   read. Several engines may host the same agent id: the claim decides which one runs it.
 * - When its agent answers, it calls `recordStep` and records nothing itself: every engine records
 *   the step when it reads the `step` entry, the first one for the interaction (later ones are ignored).
 * - It starts the run with `start(initialEvents)`, which publishes the initial events unless another
 *   engine of the run already did.
 * - The run ends for every engine when every interaction of the spec has a step, or when none is
 *   triggered without a step and the initial events were read (nothing runs or can be claimed
 *   anywhere, and no event is left: the rest are deadlocked), or at the first `timed-out` entry. An
 *   engine whose own timeout passes calls `timeOut()` and ends. With `externalEvents` declared the
 *   run cannot tell that nothing more will come, so it ends with every step or at the timeout.
 *
 * Then `ChoreographyResult.stepResults` holds every step of the run, whichever engine ran it, and
 * `pending` every interaction of the spec that never started.
 *
 * @example
 * ```ts
 * import type { ChoreographyCoordinator, EventBus } from '@rxagents/choreography';
 *
 * function isShared(bus: EventBus): bus is EventBus & { readonly coordinator: ChoreographyCoordinator } {
 *   return bus.coordinator !== undefined;
 * }
 * ```
 */
export interface ChoreographyCoordinator {
  /** The run's entries in the shared order, from its first; completes when the bus closes. */
  readonly entries$: Observable<CoordinatedEntry>;
  /** Publishes the run's initial events, unless an engine of the run already did. */
  start(events: readonly ChoreographyEvent[]): void;
  /**
   * Subscribing asks for the right to run `interactionId`, triggered by the entry `eventId`: emits
   * `true` once it is held (now, or later when the engine holding it died), `false` if it is lost,
   * `true` again if regained. Unsubscribing gives it up.
   */
  claim(eventId: string, interactionId: string): Observable<boolean>;
  /** Appends the step of an interaction this engine ran (with the event it emits, or `null`) for every engine to read. */
  recordStep(eventId: string, step: StepResult, emitted: ChoreographyEvent | null): void;
  /** Appends a `timed-out` entry: this engine's timeout passed, and the run ends for every engine. */
  timeOut(): void;
}
