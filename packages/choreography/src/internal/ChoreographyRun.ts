import { type Agent, type AgentCallResult, callAgent, ConfigError, type RunContext, scheduleDelay } from '@rxagents/core';
import { Observable, type Subscriber, type Subscription } from 'rxjs';
import type { ChoreographyEvent } from '../ChoreographyEvent';
import type { ChoreographyResult } from '../ChoreographyResult';
import type { Interaction } from '../Interaction';
import type { ReadyInteraction } from '../InteractionRouter';
import { choreographyEventIssue } from '../choreographyEventIssue';
import { RunBase, type RunSettings, stepResultOf } from './RunBase';
import { StepCall, type StepOwner } from './StepCall';

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
class ChoreographyRun extends RunBase implements StepOwner {
  /** Steps recorded as their agents answered (not those cut short by the timeout). */
  #answered = 0;
  /** The running steps, a doubly linked list in start order. */
  #first: StepCall | undefined = undefined;
  #last: StepCall | undefined = undefined;
  #busSubscription: Subscription | undefined = undefined;
  #busEnded = false;
  #timer: Subscription | undefined = undefined;

  constructor(settings: RunSettings, node: RunContext | undefined, subscriber: Subscriber<ChoreographyResult>) {
    super(settings, node, subscriber, { hosted: settings.hosted, hostedCount: settings.hostedCount, shared: false });
  }

  /** Subscribes to the bus, starts the timer and publishes the initial events: in that order, as before. */
  start(input: string | undefined): void {
    const { bus, spec, timeout, scheduler, hostedCount } = this.settings;
    this.#busSubscription = bus.events$.subscribe({
      next: (event) => this.#heard(event),
      error: (error: unknown) => this.fail(error),
      complete: () => this.#busComplete(),
    });
    if (this.done) return;
    this.#timer = scheduleDelay(scheduler, timeout, () => this.finish(true));
    try {
      for (const name of spec.initialEvents) bus.publish(input === undefined ? { name } : { name, input });
    } catch (error) {
      this.fail(error);
      return;
    }
    // An engine that runs none of the interactions only starts the run.
    if (hostedCount === 0) this.finish(false);
  }

  /** Stops everything still running: the bus subscription, then each running agent in start order, then the timer. */
  teardown(): void {
    this.done = true;
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
    if (this.done) return;
    this.#unlink(step);
    const result = stepResultOf(step.interaction, call);
    try {
      this.record(result);
      const { emits } = step.interaction;
      if (result.success && emits !== null) {
        this.settings.bus.publish({ name: emits, output: result.output, interactionId: result.interactionId, agentId: result.agentId });
      }
    } catch (error) {
      this.fail(error);
      return;
    }
    this.#answered += 1;
    if (this.#answered >= this.settings.hostedCount || (this.#busEnded && this.#first === undefined)) this.finish(false);
  }

  stepErrored(error: unknown): void {
    this.fail(error);
  }

  #heard(event: ChoreographyEvent): void {
    if (this.done) return;
    try {
      // A bus of your own may deliver anything: a malformed event fails the run with a ConfigError, not a TypeError.
      const malformed = choreographyEventIssue(event);
      if (malformed !== undefined) throw new ConfigError('ChoreographyEngine bus event', [malformed]);
      this.settings.events.next(event);
      this.reporter?.published(event);
      if (this.settings.hostedCount === 0) return;
      const ready = this.router.route(event);
      for (let index = 0; index < ready.length && !this.done; index += 1) this.#startStep(ready[index] as ReadyInteraction);
    } catch (error) {
      this.fail(error);
    }
  }

  #startStep({ interaction, input }: ReadyInteraction): void {
    const settings = this.settings;
    const step = new StepCall(this, interaction, input, settings.scheduler.now());
    this.#link(step);
    // The router starts hosted interactions only, so the agent is there.
    const agent = settings.agents.get(interaction.target) as Agent;
    callAgent(agent, input, this.callOptionsOf(interaction)).subscribe(step);
  }

  #busComplete(): void {
    if (this.done || this.settings.hostedCount === 0) return;
    this.#busEnded = true;
    if (this.#first === undefined) this.finish(false);
  }

  protected forEachRunning(visit: (interaction: Interaction, input: string, startedAt: number) => void): void {
    for (let step = this.#first; step !== undefined; step = step.following) visit(step.interaction, step.input, step.startedAt);
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
