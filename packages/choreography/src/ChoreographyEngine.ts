import { type Agent, configRules, delayTimer, lastValue, type LastValueOptions, parseConfig, reply, reportUnhandledError } from '@rxagents/core';
import {
  asyncScheduler,
  catchError,
  defer,
  endWith,
  finalize,
  ignoreElements,
  map,
  merge,
  mergeMap,
  type Observable,
  of,
  type SchedulerLike,
  Subject,
  take,
  tap,
} from 'rxjs';
import { z } from 'zod';
import { ChoreographyEngineBuilder } from './ChoreographyEngineBuilder';
import { type ChoreographyEngineOptions, ChoreographyEngineOptionsSchema } from './ChoreographyEngineOptions';
import type { ChoreographyEvent } from './ChoreographyEvent';
import type { ChoreographyLogger } from './ChoreographyLogger';
import type { ChoreographyResult, StepResult } from './ChoreographyResult';
import type { ChoreographySpec } from './ChoreographySpec';
import { DeadlockDetector } from './DeadlockDetector';
import type { EventBus } from './EventBus';
import { InMemoryEventBus } from './InMemoryEventBus';
import type { Interaction } from './Interaction';
import { InteractionRouter, type ReadyInteraction } from './InteractionRouter';
import { AgentNotFoundError } from './errors/AgentNotFoundError';
import { ChoreographyAlreadyExecutedError } from './errors/ChoreographyAlreadyExecutedError';
import { ChoreographyTimeoutError } from './errors/ChoreographyTimeoutError';

const ExecuteOptionsSchema = z.strictObject({ signal: configRules.abortSignal().optional() });

/** An interaction whose agent is running, and since when (scheduler time). */
interface RunningStep {
  readonly interaction: Interaction;
  readonly startedAt: number;
}

/**
 * Runs a {@link ChoreographySpec}: an event-to-interaction operator graph over a shared event stream.
 *
 * @remarks
 * A run subscribes to the {@link EventBus}, publishes the spec's initial events, and routes every
 * event, by a map lookup on its name, to the interactions it triggers. Each interaction runs at most
 * once, on its own concurrent branch (`mergeMap`): only its `target` agent is called, through `reply`
 * from `@rxagents/core`, with the task followed by `Context: <output>` when the triggering event
 * carries the previous agent's output. On success the interaction publishes its `emits` event with
 * the output. A target with no registered agent fails the step with `Agent not found: <id>`.
 *
 * The run ends when every interaction has run once, or when `timeout` passes on the scheduler: then
 * running agents are aborted (their signals fire), each gets a failed step, and never-started
 * interactions are listed in `pending`. Before running, `DeadlockDetector.detect` checks the
 * spec and a cycle is logged as a warning. An engine runs once; its run closes its bus.
 *
 * `steps$` emits each {@link StepResult} as it happens and `events$` every event published; both
 * complete when the run ends. Subscribe to them before executing.
 *
 * @example
 * ```ts
 * import { ChoreographyEngine, ChoreographySpec } from '@rxagents/choreography';
 * import { defineAgent } from '@rxagents/core';
 *
 * const spec = ChoreographySpec.builder('article')
 *   .initialEvent('start')
 *   .interaction('research', 'system', 'researcher', 'start', 'researched', 'Collect sources')
 *   .interaction('draft', 'researcher', 'writer', 'researched', null, 'Write a draft')
 *   .build();
 * const engine = ChoreographyEngine.builder()
 *   .spec(spec)
 *   .agent('researcher', defineAgent('researcher', async () => 'three sources'))
 *   .agent('writer', defineAgent('writer', async (input) => `draft based on: ${input}`))
 *   .timeout(60_000)
 *   .build();
 * engine.steps$.subscribe((step) => console.log(step.interactionId, step.success));
 * const result = await engine.execute();
 * console.log(result.success, result.completedCount); // true 2
 * ```
 */
export class ChoreographyEngine {
  /** The spec this engine runs. */
  readonly spec: ChoreographySpec;
  /** Each step's result as it happens; completes when the run ends. */
  readonly steps$: Observable<StepResult>;
  /** Every event published on the bus during the run; completes when the run ends. */
  readonly events$: Observable<ChoreographyEvent>;

  readonly #agents: ReadonlyMap<string, Agent>;
  readonly #timeout: number;
  readonly #scheduler: SchedulerLike;
  readonly #logger: ChoreographyLogger;
  readonly #bus: EventBus;
  readonly #routes: ReadonlyMap<string, readonly Interaction[]>;
  readonly #steps = new Subject<StepResult>();
  readonly #events = new Subject<ChoreographyEvent>();
  #executed = false;
  #ended = false;

  /**
   * Validates the options ({@link ChoreographyEngineOptionsSchema}) and prepares the routing map.
   *
   * @throws `ConfigError` when an option breaks a rule.
   */
  constructor(options: ChoreographyEngineOptions) {
    const parsed = parseConfig(ChoreographyEngineOptionsSchema, options, 'ChoreographyEngine options');
    this.spec = parsed.spec;
    this.#agents = toAgentMap(parsed.agents);
    this.#timeout = parsed.timeout;
    this.#scheduler = parsed.scheduler ?? asyncScheduler;
    this.#logger = parsed.logger ?? console;
    this.#bus = parsed.bus ?? new InMemoryEventBus();
    this.#routes = InteractionRouter.routesOf(this.spec);
    this.steps$ = this.#steps.asObservable();
    this.events$ = this.#events.asObservable();
  }

  /**
   * Starts an engine builder: the fluent form, as in the Java coordination library these APIs follow.
   *
   * @example
   * ```ts
   * import { ChoreographyEngine, ChoreographySpec } from '@rxagents/choreography';
   * import { defineAgent } from '@rxagents/core';
   *
   * const spec = ChoreographySpec.builder('ping').initialEvent('go').interaction('ping', 'a', 'b', 'go', null, 'Say ping').build();
   * const engine = ChoreographyEngine.builder().spec(spec).agent('b', defineAgent('b', async () => 'ping')).build();
   * console.log((await engine.execute()).success); // true
   * ```
   */
  static builder(): ChoreographyEngineBuilder {
    return new ChoreographyEngineBuilder((options) => new ChoreographyEngine(options));
  }

  /**
   * The run as an Observable: emits one {@link ChoreographyResult} and completes.
   *
   * @remarks
   * Subscribing starts the run; unsubscribing cancels it (running agents are aborted, the bus is
   * closed). A second subscription errors with {@link ChoreographyAlreadyExecutedError}.
   */
  execute$(): Observable<ChoreographyResult> {
    return defer(() => {
      if (this.#executed) throw new ChoreographyAlreadyExecutedError(this.spec.name);
      this.#executed = true;
      // Whatever ends the run (its result, an error from the logger or the bus, or unsubscription)
      // completes steps$ and events$ and closes the bus.
      return defer(() => this.#run()).pipe(
        finalize(() => {
          const closeError = this.#end();
          if (closeError !== undefined) reportUnhandledError(closeError.error);
        }),
      );
    });
  }

  /**
   * Runs the choreography and resolves with its result: `lastValue(execute$(), options)`.
   *
   * @remarks
   * Aborting `options.signal` cancels the run and rejects with the signal's reason. A second call
   * rejects with {@link ChoreographyAlreadyExecutedError}; an unknown or malformed option rejects
   * with `ConfigError` and starts nothing.
   */
  execute(options: LastValueOptions = {}): Promise<ChoreographyResult> {
    let checked: LastValueOptions;
    try {
      checked = parseConfig(ExecuteOptionsSchema, options, 'ChoreographyEngine.execute options');
    } catch (error) {
      return Promise.reject(error);
    }
    return lastValue(this.execute$(), checked);
  }

  #run(): Observable<ChoreographyResult> {
    const scheduler = this.#scheduler;
    const startedAt = scheduler.now();
    this.#warnAboutCycles();
    const router = new InteractionRouter(this.#routes);
    const running = new Map<string, RunningStep>();
    const stepResults: StepResult[] = [];
    const record = (step: StepResult): void => {
      stepResults.push(step);
      this.#steps.next(step);
    };

    const allStepsDone$ = this.#bus.events$.pipe(
      tap((event) => this.#events.next(event)),
      mergeMap((event) => router.route(event)),
      mergeMap((ready) => this.#runStep(ready, running)),
      tap((step) => {
        record(step);
        const emits = this.spec.interaction(step.interactionId)?.emits;
        if (step.success && emits !== null && emits !== undefined) {
          this.#bus.publish({ name: emits, output: step.output ?? '', interactionId: step.interactionId, agentId: step.agentId });
        }
      }),
      take(this.spec.interactions.length),
      ignoreElements(),
      endWith(false),
    );
    const timedOut$ = delayTimer(this.#timeout, scheduler).pipe(map(() => true));
    const start$ = defer(() => {
      for (const name of this.spec.initialEvents) this.#bus.publish({ name });
      return [];
    });

    return merge(allStepsDone$, timedOut$, start$).pipe(
      take(1),
      map((timedOut) => {
        const now = scheduler.now();
        if (timedOut) {
          const error = new ChoreographyTimeoutError(this.spec.name, this.#timeout);
          for (const { interaction, startedAt: stepStart } of running.values()) {
            record({ interactionId: interaction.id, agentId: interaction.target, durationMs: now - stepStart, success: false, error: error.message });
          }
        }
        const failedCount = stepResults.filter((step) => !step.success).length;
        const result: ChoreographyResult = {
          success: failedCount === 0,
          stepResults: [...stepResults],
          totalDurationMs: now - startedAt,
          completedCount: stepResults.length - failedCount,
          failedCount,
          timedOut,
          pending: this.spec.interactions.filter((interaction) => !router.hasStarted(interaction.id)).map((interaction) => interaction.id),
        };
        const closeError = this.#end();
        if (closeError !== undefined) throw closeError.error;
        return result;
      }),
    );
  }

  #runStep({ interaction, input }: ReadyInteraction, running: Map<string, RunningStep>): Observable<StepResult> {
    return defer(() => {
      const scheduler = this.#scheduler;
      const startedAt = scheduler.now();
      const base = { interactionId: interaction.id, agentId: interaction.target };
      const agent = this.#agents.get(interaction.target);
      if (agent === undefined) {
        return of<StepResult>({ ...base, durationMs: 0, success: false, error: new AgentNotFoundError(interaction.target).message });
      }
      running.set(interaction.id, { interaction, startedAt });
      const options = interaction.timeout === undefined ? { scheduler } : { scheduler, timeout: interaction.timeout };
      return reply(agent, input, options).pipe(
        map((output): StepResult => ({ ...base, output, durationMs: scheduler.now() - startedAt, success: true })),
        catchError((error: unknown) =>
          of<StepResult>({ ...base, durationMs: scheduler.now() - startedAt, success: false, error: error instanceof Error ? error.message : String(error) }),
        ),
        tap(() => running.delete(interaction.id)),
      );
    });
  }

  #warnAboutCycles(): void {
    const { cycles, hasDeadlock, truncated } = DeadlockDetector.detect(this.spec);
    if (!hasDeadlock) return;
    const listed = cycles.map((cycle) => [...cycle, cycle[0]].join(' -> ')).join('; ');
    this.#logger.warn(
      `Choreography "${this.spec.name}" has a cycle in its source-to-target graph (possible deadlock): ${listed}${truncated ? '; more cycles not listed' : ''}. Running anyway.`,
    );
  }

  /** Ends the run once: completes steps$ and events$, then closes the bus; returns what `close` threw. */
  #end(): { readonly error: unknown } | undefined {
    if (this.#ended) return undefined;
    this.#ended = true;
    this.#steps.complete();
    this.#events.complete();
    try {
      this.#bus.close();
      return undefined;
    } catch (error) {
      return { error };
    }
  }
}

function toAgentMap(agents: ReadonlyMap<string, Agent> | Readonly<Record<string, Agent>> | undefined): ReadonlyMap<string, Agent> {
  if (agents === undefined) return new Map();
  return agents instanceof Map ? new Map(agents) : new Map(Object.entries(agents));
}
