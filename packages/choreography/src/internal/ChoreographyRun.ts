import { type Agent, type AgentCallOptions, type AgentCallResult, callAgent, type RunContext, scheduleDelay } from '@rxagents/core';
import { Observable, type Observer, type SchedulerLike, type Subscriber, type Subscription } from 'rxjs';
import type { ChoreographyEvent } from '../ChoreographyEvent';
import type { ChoreographyLogger } from '../ChoreographyLogger';
import type { ChoreographyResult, StepResult } from '../ChoreographyResult';
import { type ChoreographySpec, derivedFrom } from '../ChoreographySpec';
import { DeadlockDetector } from '../DeadlockDetector';
import type { EventBus } from '../EventBus';
import type { Interaction } from '../Interaction';
import { InteractionRouter, type ReadyInteraction } from '../InteractionRouter';
import { ChoreographyTimeoutError } from '../errors/ChoreographyTimeoutError';
import { ChoreographyRunEvents } from './ChoreographyRunEvents';
import { StepCall, type StepOwner } from './StepCall';

/** Everything one run needs; the engine validated it. */
export interface RunSettings {
  readonly spec: ChoreographySpec;
  /** The agents of this engine; every interaction whose target is here is hosted. */
  readonly agents: ReadonlyMap<string, Agent>;
  /** Whether this engine runs each interaction (1) or leaves it to another engine (0), by position in the spec. */
  readonly hosted: Uint8Array;
  /** How many interactions this engine runs. */
  readonly hostedCount: number;
  /** Whether the options declare `externalEvents`: a shared run then cannot tell that nothing more will come. */
  readonly waitsForExternalEvents: boolean;
  readonly timeout: number;
  readonly scheduler: SchedulerLike;
  readonly logger: ChoreographyLogger;
  readonly bus: EventBus;
  /** Hears each step and each event of the run, as they happen. */
  readonly steps: Pick<Observer<StepResult>, 'next'>;
  readonly events: Pick<Observer<ChoreographyEvent>, 'next'>;
  /** Ends the run once: completes steps and events, closes the bus; returns what `close` threw. */
  readonly end: () => { readonly error: unknown } | undefined;
}

/**
 * One run of a choreography: subscribes to the bus, publishes the initial events (carrying `input`,
 * if given), routes events to hosted interactions and ends when all have run or at the timeout.
 * With a `node`, the run reports its published events, agent calls, steps and termination into it.
 *
 * @internal
 */
export function runChoreography(settings: RunSettings, input: string | undefined, node: RunContext | undefined): Observable<ChoreographyResult> {
  return new Observable<ChoreographyResult>((subscriber) => {
    const run = new ChoreographyRun(settings, node, subscriber);
    run.start(input);
    return () => run.teardown();
  });
}

/**
 * The state of one run and the observer of everything it hears: bus events, agent results, the timer.
 *
 * @remarks
 * One object per run instead of a pipeline of operators (`mergeMap` over routed events, a `defer` +
 * `map` + `tap` per interaction, `take`, `merge` with the timer): per event it pays a map lookup, per
 * interaction one {@link StepCall}. What it does is what that pipeline did, in the same order: a bus
 * event is recorded and reported, then routed; a step is taken off the running list, recorded and
 * reported, then its `emits` event is published; the run ends when every hosted interaction has a
 * step, when the bus ends with no agent running, or at the timeout (then each running step fails with
 * `ChoreographyTimeoutError`). The result is emitted before the running agents are aborted, so what
 * they cancel on their way out is reported inside the run. Anything thrown while handling an event or
 * a step (a bus whose `publish` throws, a reporter) errors the run, as an operator would.
 */
class ChoreographyRun implements StepOwner {
  readonly #settings: RunSettings;
  readonly #subscriber: Subscriber<ChoreographyResult>;
  readonly #startedAt: number;
  readonly #cycles: string;
  readonly #router: InteractionRouter;
  readonly #reporter: ChoreographyRunEvents | undefined;
  /** The options of an agent call, for interactions without a timeout of their own. */
  readonly #callOptions: AgentCallOptions;
  readonly #stepResults: StepResult[] = [];
  /** Steps recorded as their agents answered (not those cut short by the timeout). */
  #answered = 0;
  /** The running steps, a doubly linked list in start order. */
  #first: StepCall | undefined = undefined;
  #last: StepCall | undefined = undefined;
  #busSubscription: Subscription | undefined = undefined;
  #busEnded = false;
  #timer: Subscription | undefined = undefined;
  #done = false;

  constructor(settings: RunSettings, node: RunContext | undefined, subscriber: Subscriber<ChoreographyResult>) {
    this.#settings = settings;
    this.#subscriber = subscriber;
    const { scheduler } = settings;
    this.#startedAt = scheduler.now();
    this.#cycles = warnAboutCycles(settings.spec, settings.logger);
    this.#router = new InteractionRouter(settings.spec, settings.hosted);
    this.#reporter = node === undefined ? undefined : new ChoreographyRunEvents(node);
    // Without a run, the options are what they were before runs existed: no key for the call to check.
    this.#callOptions = node === undefined ? { scheduler } : { scheduler, run: node };
  }

  /** Subscribes to the bus, starts the timer and publishes the initial events: in that order, as before. */
  start(input: string | undefined): void {
    const { bus, spec, timeout, scheduler, hostedCount } = this.#settings;
    this.#busSubscription = bus.events$.subscribe({
      next: (event) => this.#heard(event),
      error: (error: unknown) => this.#fail(error),
      complete: () => this.#busComplete(),
    });
    if (this.#done) return;
    this.#timer = scheduleDelay(scheduler, timeout, () => this.#finish(true));
    try {
      for (const name of spec.initialEvents) bus.publish(input === undefined ? { name } : { name, input });
    } catch (error) {
      this.#fail(error);
      return;
    }
    // An engine that runs none of the interactions only starts the run.
    if (hostedCount === 0) this.#finish(false);
  }

  /** Stops everything still running: the bus subscription, then each running agent in start order, then the timer. */
  teardown(): void {
    this.#done = true;
    this.#busSubscription?.unsubscribe();
    let step = this.#first;
    this.#first = undefined;
    this.#last = undefined;
    while (step !== undefined) {
      const following = step.following;
      step.previous = undefined;
      step.following = undefined;
      step.unsubscribe();
      step = following;
    }
    this.#timer?.unsubscribe();
  }

  stepEnded(step: StepCall, call: AgentCallResult): void {
    if (this.#done) return;
    this.#unlink(step);
    const result = stepResultOf(step.interaction, call);
    try {
      this.#record(result);
      const { emits } = step.interaction;
      if (result.success && emits !== null) {
        this.#settings.bus.publish({ name: emits, output: result.output, interactionId: result.interactionId, agentId: result.agentId });
      }
    } catch (error) {
      this.#fail(error);
      return;
    }
    this.#answered += 1;
    if (this.#answered >= this.#settings.hostedCount || (this.#busEnded && this.#first === undefined)) this.#finish(false);
  }

  stepErrored(error: unknown): void {
    this.#fail(error);
  }

  #heard(event: ChoreographyEvent): void {
    if (this.#done) return;
    try {
      this.#settings.events.next(event);
      this.#reporter?.published(event);
      if (this.#settings.hostedCount === 0) return;
      const ready = this.#router.route(event);
      for (let index = 0; index < ready.length && !this.#done; index += 1) this.#startStep(ready[index] as ReadyInteraction);
    } catch (error) {
      this.#fail(error);
    }
  }

  #startStep({ interaction, input }: ReadyInteraction): void {
    const settings = this.#settings;
    const step = new StepCall(this, interaction, input, settings.scheduler.now());
    this.#link(step);
    const { timeout } = interaction;
    // The router starts hosted interactions only, so the agent is there.
    const agent = settings.agents.get(interaction.target) as Agent;
    callAgent(agent, input, timeout === undefined ? this.#callOptions : { ...this.#callOptions, timeout }).subscribe(step);
  }

  #busComplete(): void {
    if (this.#done || this.#settings.hostedCount === 0) return;
    this.#busEnded = true;
    if (this.#first === undefined) this.#finish(false);
  }

  #record(step: StepResult): void {
    this.#stepResults.push(step);
    this.#settings.steps.next(step);
    this.#reporter?.step(step);
  }

  #fail(error: unknown): void {
    if (this.#done) return;
    this.#done = true;
    this.#subscriber.error(error);
  }

  /** Ends the run with its result: every step recorded, the termination reported, steps$ and busEvents$ completed, the bus closed. */
  #finish(timedOut: boolean): void {
    if (this.#done) return;
    this.#done = true;
    let result: ChoreographyResult;
    try {
      result = this.#result(timedOut);
    } catch (error) {
      this.#subscriber.error(error);
      return;
    }
    this.#subscriber.next(result);
    this.#subscriber.complete();
  }

  #result(timedOut: boolean): ChoreographyResult {
    const settings = this.#settings;
    const { spec, hostedCount } = settings;
    const now = settings.scheduler.now();
    const aborted: string[] = [];
    if (timedOut) {
      const error = new ChoreographyTimeoutError(spec.name, settings.timeout);
      for (let step = this.#first; step !== undefined; step = step.following) {
        const { interaction, input, startedAt } = step;
        aborted.push(interaction.id);
        this.#record({ interactionId: interaction.id, agentId: interaction.target, input, success: false, error, startedAt, durationMs: now - startedAt });
      }
    }
    const stepResults = this.#stepResults;
    let failedCount = 0;
    for (const step of stepResults) if (!step.success) failedCount += 1;
    const result: ChoreographyResult = {
      success: failedCount === 0,
      stepResults: [...stepResults],
      totalDurationMs: now - this.#startedAt,
      completedCount: stepResults.length - failedCount,
      failedCount,
      timedOut,
      pending: this.#pending(),
    };
    // The steps cut short by the timeout are still running: their calls are aborted after this.
    this.#reporter?.terminated(spec, result, { timeout: settings.timeout, hostedCount, aborted, cycles: this.#cycles });
    const closeError = settings.end();
    if (closeError !== undefined) throw closeError.error;
    return result;
  }

  /** The hosted interactions that never started, in spec order (none to look for once all have started). */
  #pending(): string[] {
    const { spec, agents, hostedCount } = this.#settings;
    const router = this.#router;
    const pending: string[] = [];
    if (router.startedCount === hostedCount) return pending;
    spec.interactions.forEach((interaction, index) => {
      if (agents.has(interaction.target) && !router.hasStarted(index)) pending.push(interaction.id);
    });
    return pending;
  }

  #link(step: StepCall): void {
    const last = this.#last;
    step.previous = last;
    if (last === undefined) this.#first = step;
    else last.following = step;
    this.#last = step;
  }

  #unlink(step: StepCall): void {
    const { previous, following } = step;
    if (previous === undefined) this.#first = following;
    else previous.following = following;
    if (following === undefined) this.#last = previous;
    else following.previous = previous;
    step.previous = undefined;
    step.following = undefined;
  }
}

/**
 * The step of an interaction: its call's result with the interaction's id, naming the agent by the id
 * it is registered under (the interaction's target). Written out field by field, in the order of the
 * call's result, rather than spread: one object shape for every step, and no generic property copy.
 */
export function stepResultOf(interaction: Interaction, call: AgentCallResult): StepResult {
  const { input, startedAt, durationMs } = call;
  return call.success
    ? { interactionId: interaction.id, success: true, agentId: interaction.target, input, output: call.output, startedAt, durationMs }
    : { interactionId: interaction.id, success: false, agentId: interaction.target, input, error: call.error, startedAt, durationMs };
}

/** Warns about cycles in the spec's source-to-target graph; returns them as text (empty for none). */
export function warnAboutCycles(spec: ChoreographySpec, logger: ChoreographyLogger): string {
  const listed = derivedFrom(spec, cyclesOf);
  if (listed !== '') logger.warn(`Choreography "${spec.name}" has a cycle in its source-to-target graph (possible deadlock): ${listed}. Running anyway.`);
  return listed;
}

/** The cycles of the spec's source-to-target graph as text, empty for none (derived once per spec). */
function cyclesOf(spec: ChoreographySpec): string {
  const { cycles, hasDeadlock, truncated } = DeadlockDetector.detect(spec);
  if (!hasDeadlock) return '';
  return `${cycles.map((cycle) => [...cycle, cycle[0]].join(' -> ')).join('; ')}${truncated ? '; more cycles not listed' : ''}`;
}
