import { type Agent, type AgentCallOptions, type AgentCallResult, namedPlace, type RunContext } from '@rxagents/core';
import type { Observer, SchedulerLike, Subscriber } from 'rxjs';
import type { ChoreographyEvent } from '../ChoreographyEvent';
import type { ChoreographyLogger } from '../ChoreographyLogger';
import type { ChoreographyResult, StepResult } from '../ChoreographyResult';
import { type ChoreographySpec, derivedFrom } from '../ChoreographySpec';
import { DeadlockDetector } from '../DeadlockDetector';
import type { EventBus } from '../EventBus';
import type { Interaction } from '../Interaction';
import { InteractionRouter } from '../InteractionRouter';
import { ChoreographyTimeoutError } from '../errors/ChoreographyTimeoutError';
import { ChoreographyRunEvents } from './ChoreographyRunEvents';

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

/** Which interactions a run routes to and follows: by position in the spec, and how many. */
export interface RunScope {
  readonly hosted: Uint8Array;
  readonly hostedCount: number;
  /** The run is shared by engines in several processes (its termination says so). */
  readonly shared: boolean;
}

/**
 * What a run in one engine (`ChoreographyRun`) and a run shared by engines in several processes
 * (`CoordinatedRun`) have in common: the router, the steps recorded and reported, and the end of the
 * run (failed, or finished with its result, the termination reported and the bus closed).
 *
 * @remarks
 * A subclass says which steps are still running ({@link RunBase.forEachRunning}): at the timeout each
 * of them is recorded as failed with `ChoreographyTimeoutError` before the result is built. `done` is
 * set once the run has ended, by whatever ended it; nothing is recorded or started after that.
 *
 * @internal
 */
export abstract class RunBase {
  protected readonly settings: RunSettings;
  protected readonly router: InteractionRouter;
  protected readonly reporter: ChoreographyRunEvents | undefined;
  /** The options of an agent call, for interactions without a timeout of their own. */
  readonly #callOptions: AgentCallOptions;
  protected readonly stepResults: StepResult[] = [];
  protected done = false;
  readonly #subscriber: Subscriber<ChoreographyResult>;
  readonly #scope: RunScope;
  readonly #startedAt: number;
  readonly #cycles: string;

  constructor(settings: RunSettings, node: RunContext | undefined, subscriber: Subscriber<ChoreographyResult>, scope: RunScope) {
    this.settings = settings;
    this.#subscriber = subscriber;
    this.#scope = scope;
    const { scheduler } = settings;
    this.#startedAt = scheduler.now();
    this.#cycles = warnAboutCycles(settings.spec, settings.logger);
    this.router = new InteractionRouter(settings.spec, scope.hosted);
    this.reporter = node === undefined ? undefined : new ChoreographyRunEvents(node);
    // Without a run, the options are what they were before runs existed: no key for the call to check.
    this.#callOptions = node === undefined ? { scheduler } : { scheduler, run: node };
  }

  /**
   * The options of `interaction`'s agent call. In a durable run the call's place is named after the
   * interaction: interactions start when their triggers arrive, in an order that depends on which calls
   * finished first, so a resumed run (whose recorded calls finish at once) finds each outcome by name.
   */
  protected callOptionsOf(interaction: Interaction): AgentCallOptions {
    const { timeout } = interaction;
    const options = this.#callOptions;
    const node = options.run;
    const run = node === undefined ? undefined : namedPlace(node, interaction.id);
    if (run === node) return timeout === undefined ? options : { ...options, timeout };
    return timeout === undefined ? { ...options, run } : { ...options, run, timeout };
  }

  /** Calls `visit` for each step still running, in start order. */
  protected abstract forEachRunning(visit: (interaction: Interaction, input: string, startedAt: number) => void): void;

  protected record(step: StepResult): void {
    this.stepResults.push(step);
    this.settings.steps.next(step);
    this.reporter?.step(step);
  }

  protected fail(error: unknown): void {
    if (this.done) return;
    this.done = true;
    this.#subscriber.error(error);
  }

  /** Ends the run with its result: every step recorded, the termination reported, steps$ and busEvents$ completed, the bus closed. */
  protected finish(timedOut: boolean): void {
    if (this.done) return;
    this.done = true;
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
    const settings = this.settings;
    const { spec } = settings;
    const now = settings.scheduler.now();
    const aborted: string[] = [];
    if (timedOut) {
      const error = new ChoreographyTimeoutError(spec.name, settings.timeout);
      this.forEachRunning((interaction, input, startedAt) => {
        aborted.push(interaction.id);
        this.record({ interactionId: interaction.id, agentId: interaction.target, input, success: false, error, startedAt, durationMs: now - startedAt });
      });
    }
    const stepResults = this.stepResults;
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
    const { hostedCount, shared } = this.#scope;
    this.reporter?.terminated(spec, result, { timeout: settings.timeout, hostedCount, aborted, cycles: this.#cycles, shared });
    const closeError = settings.end();
    if (closeError !== undefined) throw closeError.error;
    return result;
  }

  /** The followed interactions that never started, in spec order (none to look for once all have started). */
  #pending(): string[] {
    const { hosted, hostedCount } = this.#scope;
    const router = this.router;
    const pending: string[] = [];
    if (router.startedCount === hostedCount) return pending;
    this.settings.spec.interactions.forEach((interaction, index) => {
      if (hosted[index] === 1 && !router.hasStarted(index)) pending.push(interaction.id);
    });
    return pending;
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
function warnAboutCycles(spec: ChoreographySpec, logger: ChoreographyLogger): string {
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
