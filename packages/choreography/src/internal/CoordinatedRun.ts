import { type Agent, type AgentCallResult, callAgent, type RunContext, scheduleDelay } from '@rxagents/core';
import { Observable, type Subscriber, type Subscription } from 'rxjs';
import type { ChoreographyCoordinator, CoordinatedEntry } from '../ChoreographyCoordinator';
import type { ChoreographyEvent } from '../ChoreographyEvent';
import type { ChoreographyResult, StepResult } from '../ChoreographyResult';
import type { Interaction } from '../Interaction';
import { RunBase, type RunSettings, stepResultOf } from './RunBase';
import { StepCall, type StepOwner } from './StepCall';

/** A triggered interaction without a step yet: claimed (or waiting for its claim) when hosted here. */
interface Flight {
  readonly interaction: Interaction;
  readonly input: string;
  /** The entry whose event triggered it. */
  readonly eventId: string;
  /** When this engine read that entry, on its scheduler. */
  readonly triggeredAt: number;
  claim: Subscription | undefined;
  call: StepCall | undefined;
  /** This engine ran it and recorded its step; it waits to read the step back. */
  recorded: boolean;
}

/**
 * One run of a choreography on a bus shared by engines in several processes: see
 * {@link ChoreographyCoordinator} for what it does.
 *
 * @internal
 */
export function runCoordinated(settings: RunSettings, coordinator: ChoreographyCoordinator, input: string | undefined, node: RunContext | undefined): Observable<ChoreographyResult> {
  return new Observable<ChoreographyResult>((subscriber) => {
    const run = new CoordinatedRun(settings, coordinator, node, subscriber);
    run.start(input);
    return () => run.teardown();
  });
}

class CoordinatedRun extends RunBase implements StepOwner {
  readonly #coordinator: ChoreographyCoordinator;
  readonly #stepped = new Set<string>();
  /** Triggered interactions without a step, in trigger order. */
  readonly #flights = new Map<string, Flight>();
  /** The initial events not read yet: until they are, the run has not started anywhere. */
  readonly #initialUnread: Set<string>;
  #entries: Subscription | undefined = undefined;
  #timer: Subscription | undefined = undefined;

  constructor(settings: RunSettings, coordinator: ChoreographyCoordinator, node: RunContext | undefined, subscriber: Subscriber<ChoreographyResult>) {
    // Routes to every interaction of the spec: every engine follows the whole run.
    const { interactions } = settings.spec;
    super(settings, node, subscriber, { hosted: new Uint8Array(interactions.length).fill(1), hostedCount: interactions.length, shared: true });
    this.#coordinator = coordinator;
    this.#initialUnread = new Set(settings.spec.initialEvents);
  }

  start(input: string | undefined): void {
    const { spec, timeout, scheduler } = this.settings;
    this.#entries = this.#coordinator.entries$.subscribe({
      next: (entry) => this.#read(entry),
      error: (error: unknown) => this.fail(error),
      complete: () => this.finish(false),
    });
    if (this.done) return;
    this.#timer = scheduleDelay(scheduler, timeout, () => this.#timedOut());
    try {
      this.#coordinator.start(spec.initialEvents.map((name) => (input === undefined ? { name } : { name, input })));
    } catch (error) {
      this.fail(error);
    }
  }

  teardown(): void {
    this.done = true;
    this.#entries?.unsubscribe();
    for (const flight of this.#flights.values()) this.#land(flight);
    this.#timer?.unsubscribe();
  }

  stepEnded(call: StepCall, result: AgentCallResult): void {
    const flight = this.#flights.get(call.interaction.id);
    if (this.done || flight === undefined || flight.call !== call) return;
    flight.call = undefined;
    flight.recorded = true;
    const step = stepResultOf(flight.interaction, result);
    const { emits } = flight.interaction;
    const emitted = step.success && emits !== null ? { name: emits, output: step.output, interactionId: step.interactionId, agentId: step.agentId } : null;
    try {
      this.#coordinator.recordStep(flight.eventId, step, emitted);
    } catch (error) {
      this.fail(error);
    }
  }

  stepErrored(error: unknown): void {
    this.fail(error);
  }

  #read(entry: CoordinatedEntry): void {
    if (this.done) return;
    try {
      if (entry.kind === 'event') this.#heard(entry.id, entry.event);
      else if (entry.kind === 'step') this.#stepRead(entry.id, entry.step, entry.emitted);
      else return this.finish(true);
    } catch (error) {
      return this.fail(error);
    }
    this.#checkEnd();
  }

  #heard(entryId: string, event: ChoreographyEvent): void {
    const settings = this.settings;
    settings.events.next(event);
    this.reporter?.published(event);
    if (event.interactionId === undefined) this.#initialUnread.delete(event.name);
    const now = settings.scheduler.now();
    for (const { interaction, input } of this.router.route(event)) {
      const flight: Flight = { interaction, input, eventId: entryId, triggeredAt: now, claim: undefined, call: undefined, recorded: false };
      this.#flights.set(interaction.id, flight);
      if (!settings.agents.has(interaction.target)) continue;
      flight.claim = this.#coordinator.claim(entryId, interaction.id).subscribe({
        next: (held) => (held ? this.#call(flight) : this.#abort(flight)),
        error: (error: unknown) => this.fail(error),
      });
      if (this.done) return;
    }
  }

  /** The first step read for an interaction is its step; a second one (two engines ran it) is ignored. */
  #stepRead(entryId: string, step: StepResult, emitted: ChoreographyEvent | undefined): void {
    if (this.#stepped.has(step.interactionId)) return;
    this.#stepped.add(step.interactionId);
    const flight = this.#flights.get(step.interactionId);
    if (flight !== undefined) {
      this.#flights.delete(step.interactionId);
      this.#land(flight);
    }
    this.record(step);
    if (emitted !== undefined) this.#heard(entryId, emitted);
  }

  #call(flight: Flight): void {
    if (this.done || flight.call !== undefined || flight.recorded) return;
    const { interaction, input } = flight;
    const settings = this.settings;
    const call = new StepCall(this, interaction, input, settings.scheduler.now());
    flight.call = call;
    const agent = settings.agents.get(interaction.target) as Agent;
    callAgent(agent, input, this.callOptionsOf(interaction)).subscribe(call);
  }

  /** The claim was lost: another engine runs the interaction now. */
  #abort(flight: Flight): void {
    const call = flight.call;
    flight.call = undefined;
    call?.unsubscribe();
  }

  /** Stops what this engine does for the flight: its agent call and its claim. */
  #land(flight: Flight): void {
    this.#abort(flight);
    flight.claim?.unsubscribe();
    flight.claim = undefined;
  }

  /** Ends the run when every interaction has a step, or when nothing is in flight anywhere and nothing more can come. */
  #checkEnd(): void {
    if (this.done) return;
    const { spec, waitsForExternalEvents } = this.settings;
    if (this.#stepped.size === spec.interactions.length) return this.finish(false);
    if (!waitsForExternalEvents && this.#initialUnread.size === 0 && this.#flights.size === 0) this.finish(false);
  }

  #timedOut(): void {
    if (this.done) return;
    try {
      this.#coordinator.timeOut();
    } catch (error) {
      return this.fail(error);
    }
    this.finish(true);
  }

  protected forEachRunning(visit: (interaction: Interaction, input: string, startedAt: number) => void): void {
    for (const { interaction, input, call, triggeredAt } of this.#flights.values()) visit(interaction, input, call?.startedAt ?? triggeredAt);
  }
}
