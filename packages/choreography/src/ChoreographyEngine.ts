import {
  type Agent,
  ConfigError,
  configRules,
  lastValue,
  type LastValueOptions,
  observeRun,
  parseConfig,
  reportUnhandledError,
  type RunContext,
  type RunEvent,
  type RunEventsOptions,
  traceResult,
} from '@rxagents/core';
import { asyncScheduler, defer, finalize, type Observable, type SchedulerLike } from 'rxjs';
import { type ChoreographyEngineOptions, ChoreographyEngineOptionsSchema } from './ChoreographyEngineOptions';
import type { ChoreographyEvent } from './ChoreographyEvent';
import type { ChoreographyLogger } from './ChoreographyLogger';
import type { ChoreographyResult, StepResult } from './ChoreographyResult';
import type { ChoreographySpec } from './ChoreographySpec';
import type { EventBus } from './EventBus';
import { InMemoryEventBus } from './InMemoryEventBus';
import { ChoreographyAlreadyExecutedError } from './errors/ChoreographyAlreadyExecutedError';
import { type ChoreographyRunOptions, ChoreographyRunOptionsSchema } from './ChoreographyRunOptions';
import { runChoreography } from './internal/ChoreographyRun';
import type { RunSettings } from './internal/RunBase';
import { describeChoreography } from './internal/ChoreographyRunEvents';
import { runCoordinated } from './internal/CoordinatedRun';
import { ReplayLog } from './internal/ReplayLog';

const ExecuteOptionsSchema = ChoreographyRunOptionsSchema.extend({ signal: configRules.abortSignal().optional() });
const EventsOptionsSchema = ChoreographyRunOptionsSchema.omit({ run: true }).extend(configRules.runEventsOptions().shape).extend(configRules.durableRunOptions().shape);

/**
 * Runs a {@link ChoreographySpec} once: an event-to-interaction operator graph over a shared event stream.
 *
 * @remarks
 * A run subscribes to the {@link EventBus}, publishes the spec's initial events (carrying the run's
 * `input`, if given), and routes every event, by a map lookup on its name, to the interactions it
 * triggers. Each interaction runs at most once, concurrently with the others: only its `target`
 * agent is called, through `callAgent` from `@rxagents/core`, with the task followed by
 * `Context: <output>` when the triggering event carries the previous agent's output (or the run's
 * input). On success the interaction publishes its `emits` event with the output.
 *
 * Building refuses, with a `ConfigError`, a target that is neither one of `agents` nor one of
 * `remoteAgents`, and an interaction no event can ever trigger. Interactions whose target is remote
 * are left to the engine hosting that agent on a shared bus.
 *
 * The run ends when every interaction of this engine has run once, or when `timeout` passes on the
 * scheduler: then running agents are aborted (their signals fire), each gets a failed step, and
 * never-started interactions are listed in `pending`. Before running, `DeadlockDetector.detect`
 * checks the spec and a cycle is logged as a warning. An engine runs once; its run closes its bus.
 * To run a spec per request, use {@link executeChoreography}, which builds a fresh engine per run.
 *
 * On a bus with a `coordinator` (engines in several processes sharing one run, for example
 * `redisEventBus` from `@rxagents/redis`), the engine runs an interaction only while it holds its claim,
 * records every step of the run whichever engine ran it, and ends with the others; see
 * {@link ChoreographyCoordinator}.
 *
 * `steps$` emits each {@link StepResult} and `busEvents$` every event published on the bus during the
 * run; both replay the run from its start to a subscriber that comes late (even after the run ended),
 * then complete when the run ends. For the whole run as `RunEvent`s (the agents' text deltas
 * included), run it with `events$({ input })` instead of `execute$`, or pass a `run` to `execute$`.
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
 *   .agent('researcher', defineAgent('researcher', async (input) => `three sources on ${input}`))
 *   .agent('writer', defineAgent('writer', async (input) => `draft based on: ${input}`))
 *   .timeout(60_000)
 *   .build();
 * const result = await engine.execute({ input: 'agent coordination' });
 * engine.steps$.subscribe((step) => console.log(step.interactionId, step.success)); // replayed: research true, draft true
 * console.log(result.success, result.completedCount); // true 2
 * ```
 */
export class ChoreographyEngine {
  /** The spec this engine runs. */
  readonly spec: ChoreographySpec;
  /** Each step's result of the run, replayed from the start to late subscribers; completes when the run ends. */
  readonly steps$: Observable<StepResult>;
  /** Every event published on the bus during the run, replayed from the start to late subscribers; completes when the run ends. */
  readonly busEvents$: Observable<ChoreographyEvent>;

  readonly #settings: RunSettings;
  readonly #steps = new ReplayLog<StepResult>();
  readonly #events = new ReplayLog<ChoreographyEvent>();
  #executed = false;
  #ended = false;

  /**
   * Validates the options ({@link ChoreographyEngineOptionsSchema}) and prepares the routing map.
   *
   * @throws `ConfigError` when an option breaks a rule, a target has no agent, or an interaction can never trigger.
   */
  constructor(options: ChoreographyEngineOptions) {
    const parsed = parseConfig(ChoreographyEngineOptionsSchema, options, 'ChoreographyEngine options');
    this.spec = parsed.spec;
    const agents = toAgentMap(parsed.agents);
    const bus = parsed.bus ?? new InMemoryEventBus();
    const { interactions } = parsed.spec;
    const hosted = new Uint8Array(interactions.length);
    let hostedCount = 0;
    interactions.forEach((interaction, index) => {
      if (!agents.has(interaction.target)) return;
      hosted[index] = 1;
      hostedCount += 1;
    });
    this.#settings = {
      spec: parsed.spec,
      agents,
      hosted,
      hostedCount,
      waitsForExternalEvents: (parsed.externalEvents?.length ?? 0) > 0,
      timeout: parsed.timeout,
      scheduler: parsed.scheduler ?? asyncScheduler,
      logger: parsed.logger ?? console,
      bus,
      steps: this.#steps,
      events: this.#events,
      end: () => this.#end(bus),
    };
    this.steps$ = this.#steps.items$;
    this.busEvents$ = this.#events.items$;
  }

  /**
   * Starts an engine builder: the fluent form of the constructor's options.
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
    return new ChoreographyEngineBuilder();
  }

  /**
   * The run as an Observable: emits one {@link ChoreographyResult} and completes.
   *
   * @remarks
   * Subscribing starts the run; unsubscribing cancels it (running agents are aborted, the bus is
   * closed). A second subscription errors with {@link ChoreographyAlreadyExecutedError}; an unknown or
   * malformed option throws `ConfigError` when `execute$` is called and starts nothing. With `run` (for example the
   * `ChatOptions.run` of an agent that runs this choreography), the run reports itself into it as a
   * `choreography` node; see {@link ChoreographyEngine.events$} for what it says.
   */
  execute$(options: ChoreographyRunOptions = {}): Observable<ChoreographyResult> {
    const { input, run } = parseConfig(ChoreographyRunOptionsSchema, options, 'ChoreographyEngine.execute$ options');
    return defer(() => traceResult(run, 'choreography', input ?? '', (node) => this.#start(input, node), describeChoreography));
  }

  /**
   * Runs the choreography and resolves with its result: `lastValue(execute$({ input, run }), { signal })`.
   *
   * @remarks
   * Aborting `options.signal` cancels the run and rejects with the signal's reason. A second call
   * rejects with {@link ChoreographyAlreadyExecutedError}; an unknown or malformed option rejects
   * with `ConfigError` and starts nothing.
   */
  execute(options: ChoreographyRunOptions & LastValueOptions = {}): Promise<ChoreographyResult> {
    let checked: ChoreographyRunOptions & LastValueOptions;
    try {
      checked = parseConfig(ExecuteOptionsSchema, options, 'ChoreographyEngine.execute options');
    } catch (error) {
      return Promise.reject(error);
    }
    const { signal, ...runOptions } = checked;
    return lastValue(this.execute$(runOptions), signal === undefined ? {} : { signal });
  }

  /**
   * The run as {@link RunEvent}s: subscribing starts the engine's run (the same run `execute$` would
   * start) and emits everything it says, as it happens.
   *
   * @remarks
   * The events form one tree under a root `choreography` node: `run-start` (its `input` the run's
   * input, `''` without one); a `choreography-event` for every event published on the bus (`source` the
   * agent whose interaction emitted it, `null` for initial and external events); each interaction's
   * agent call (`call-start`, a `text-delta` per chunk as the agent emits it, `call-end` or
   * `call-error`; whatever the agent runs with its `ChatOptions.run` nests under its call); a `step`
   * when an interaction's step is recorded; one `termination` saying how the run ended (`decision`
   * `completed`, `timed-out` or `deadlocked`, and a `reason`); then `run-end`, whose `success` is the
   * result's, its `output` the output of the step that finished last, its `error` the first failed
   * step's error. The Observable completes after `run-end`, also when the run failed.
   *
   * Unsubscribing cancels the run: every running agent's signal fires. As with `execute$`, an engine
   * runs once: subscribing a second time gives a failed `run-end` with
   * {@link ChoreographyAlreadyExecutedError}; a bad option throws `ConfigError` when `events$` is called.
   *
   * With `store` and `runId` the run is durable: journaled in the store, and resumed from its journal when the store already holds `runId` (finished agent calls are answered from it; see `docs/durable.md`).
   *
   * @example
   * ```ts
   * import { ChoreographyEngine, ChoreographySpec } from '@rxagents/choreography';
   * import { defineAgent } from '@rxagents/core';
   * import { from } from 'rxjs';
   *
   * const spec = ChoreographySpec.builder('story').initialEvent('go').interaction('tell', 'user', 'teller', 'go', null, 'Tell a story').build();
   * const engine = new ChoreographyEngine({ spec, agents: { teller: defineAgent('teller', () => from(['Once ', 'upon ', 'a time'])) } });
   * engine.events$({ input: 'dragons' }).subscribe((event) => {
   *   if (event.type === 'text-delta') console.log(event.delta); // Once , upon , a time
   *   if (event.type === 'termination') console.log(event.decision); // completed
   * });
   * ```
   */
  events$(options: Omit<ChoreographyRunOptions, 'run'> & RunEventsOptions = {}): Observable<RunEvent> {
    const { input, ...runOptions } = parseConfig(EventsOptionsSchema, options, 'ChoreographyEngine.events$ options');
    return observeRun('choreography', input ?? '', (node) => this.#start(input, node), { ...runOptions, scheduler: this.#settings.scheduler, describe: describeChoreography });
  }

  /** Starts the engine's one run, reporting into `node` if given: the code path of execute$ and events$ alike. */
  #start(input: string | undefined, node: RunContext | undefined): Observable<ChoreographyResult> {
    return defer(() => {
      if (this.#executed) throw new ChoreographyAlreadyExecutedError(this.spec.name);
      this.#executed = true;
      const bus = this.#settings.bus;
      // Whatever ends the run (its result, an error from the logger or the bus, or unsubscription)
      // completes steps$ and busEvents$ and closes the bus.
      const { coordinator } = bus;
      return defer(() => (coordinator === undefined ? runChoreography(this.#settings, input, node) : runCoordinated(this.#settings, coordinator, input, node))).pipe(
        finalize(() => {
          const closeError = this.#end(bus);
          if (closeError !== undefined) reportUnhandledError(closeError.error);
        }),
      );
    });
  }

  /** Ends the run once: completes steps$ and busEvents$, then closes the bus; returns what `close` threw. */
  #end(bus: EventBus): { readonly error: unknown } | undefined {
    if (this.#ended) return undefined;
    this.#ended = true;
    this.#steps.complete();
    this.#events.complete();
    try {
      bus.close();
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

/**
 * Builds a {@link ChoreographyEngine}; get one from {@link ChoreographyEngine.builder}.
 *
 * @remarks
 * Sugar over {@link ChoreographyEngineOptions}: nothing is checked until
 * {@link ChoreographyEngineBuilder.build}, which validates everything with
 * {@link ChoreographyEngineOptionsSchema} and throws `ConfigError` on a missing spec, a bad option, a
 * target with no agent or an interaction that can never trigger.
 *
 * @example
 * ```ts
 * import { ChoreographyEngine, ChoreographySpec } from '@rxagents/choreography';
 * import { defineAgent } from '@rxagents/core';
 *
 * const spec = ChoreographySpec.builder('ping')
 *   .initialEvent('go')
 *   .interaction('ping', 'a', 'b', 'go', 'pinged', 'Say ping')
 *   .interaction('pong', 'b', 'c', 'pinged', null, 'Say pong')
 *   .build();
 * const engine = ChoreographyEngine.builder()
 *   .spec(spec)
 *   .agents({ b: defineAgent('b', async () => 'ping') })
 *   .remoteAgent('c') // another process runs c on a shared bus
 *   .timeout(10_000)
 *   .logger({ warn: () => undefined })
 *   .build();
 * ```
 */
export class ChoreographyEngineBuilder {
  readonly #agents = new Map<string, Agent>();
  readonly #remoteAgents: string[] = [];
  readonly #externalEvents: string[] = [];
  /** Ids under which two different agents were registered, reported by build(). */
  readonly #clashes = new Set<string>();
  #options: Partial<Omit<ChoreographyEngineOptions, 'agents' | 'remoteAgents' | 'externalEvents'>> = {};

  /** The spec to run (required). */
  spec(spec: ChoreographySpec): this {
    this.#options = { ...this.#options, spec };
    return this;
  }

  /**
   * Registers `agent` under `id`, the id interactions name as `target`. Registering a different agent
   * under an id already taken is refused by `build()`; the same agent again is harmless.
   */
  agent(id: string, agent: Agent): this {
    const registered = this.#agents.get(id);
    if (registered !== undefined && registered !== agent) this.#clashes.add(id);
    else this.#agents.set(id, agent);
    return this;
  }

  /** Registers every agent of a Map or record, keyed by the id interactions name as `target`. */
  agents(agents: ReadonlyMap<string, Agent> | Readonly<Record<string, Agent>>): this {
    if (typeof agents !== 'object' || agents === null) throw new ConfigError('ChoreographyEngine builder', [{ path: 'agents', rule: 'must be a Map or a record from an id to an agent', received: agents }]);
    for (const [id, agent] of agents instanceof Map ? agents : Object.entries(agents)) this.agent(id, agent);
    return this;
  }

  /** Declares a target that another engine runs on a shared bus: this engine neither runs its interactions nor refuses them. */
  remoteAgent(id: string): this {
    this.#remoteAgents.push(id);
    return this;
  }

  /** Declares an event that something outside the spec publishes on the bus (another process, app code), so interactions it triggers are not refused. */
  externalEvent(name: string): this {
    this.#externalEvents.push(name);
    return this;
  }

  /** The whole run's time limit in milliseconds, on the scheduler. Defaults to 5 minutes. */
  timeout(ms: number): this {
    this.#options = { ...this.#options, timeout: ms };
    return this;
  }

  /** The clock for the timeout and durations. Defaults to `asyncScheduler`. */
  scheduler(scheduler: SchedulerLike): this {
    this.#options = { ...this.#options, scheduler };
    return this;
  }

  /** Where warnings (a cycle in the spec) go. Defaults to `console`. */
  logger(logger: ChoreographyLogger): this {
    this.#options = { ...this.#options, logger };
    return this;
  }

  /** The event bus to run on. Defaults to a new {@link InMemoryEventBus}. */
  bus(bus: EventBus): this {
    this.#options = { ...this.#options, bus };
    return this;
  }

  /**
   * Validates and returns the engine.
   *
   * @throws `ConfigError`, for example `ChoreographyEngine options: spec must be a ChoreographySpec, got undefined`,
   * `ChoreographyEngine options: spec.interactions.1.target must name an agent of this engine or one of
   * remoteAgents (interaction "draft"; did you mean "writer"? agents: researcher, writer), got "writr"`,
   * or, for two different agents registered under one id, `ChoreographyEngine options: agents must
   * register one agent per id (two different agents were registered under this one), got "writer"`.
   */
  build(): ChoreographyEngine {
    if (this.#clashes.size > 0) {
      throw new ConfigError(
        'ChoreographyEngine options',
        [...this.#clashes].map((id) => ({ path: 'agents', rule: 'must register one agent per id (two different agents were registered under this one)', received: id })),
      );
    }
    return new ChoreographyEngine({
      ...this.#options,
      agents: new Map(this.#agents),
      ...(this.#remoteAgents.length === 0 ? {} : { remoteAgents: [...this.#remoteAgents] }),
      ...(this.#externalEvents.length === 0 ? {} : { externalEvents: [...this.#externalEvents] }),
    } as ChoreographyEngineOptions);
  }
}
