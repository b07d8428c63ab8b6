import { type Agent, ConfigError } from '@rxagents/core';
import type { SchedulerLike } from 'rxjs';
import type { ChoreographyEngine } from './ChoreographyEngine';
import type { ChoreographyEngineOptions } from './ChoreographyEngineOptions';
import type { ChoreographyLogger } from './ChoreographyLogger';
import type { ChoreographySpec } from './ChoreographySpec';
import type { EventBus } from './EventBus';

/**
 * Builds a {@link ChoreographyEngine}; get one from {@link ChoreographyEngine.builder}.
 *
 * @remarks
 * Nothing is checked until {@link ChoreographyEngineBuilder.build}, which validates everything with
 * {@link ChoreographyEngineOptionsSchema} and throws `ConfigError` on a missing spec or a bad option.
 *
 * @example
 * ```ts
 * import { ChoreographyEngine, ChoreographySpec } from '@rxagents/choreography';
 * import { defineAgent } from '@rxagents/core';
 *
 * const spec = ChoreographySpec.builder('ping').initialEvent('go').interaction('ping', 'a', 'b', 'go', null, 'Say ping').build();
 * const engine = ChoreographyEngine.builder()
 *   .spec(spec)
 *   .agents({ b: defineAgent('b', async () => 'ping') })
 *   .timeout(10_000)
 *   .logger({ warn: () => undefined })
 *   .build();
 * ```
 */
export class ChoreographyEngineBuilder {
  readonly #create: (options: ChoreographyEngineOptions) => ChoreographyEngine;
  readonly #agents = new Map<string, Agent>();
  /** Ids under which two different agents were registered, reported by build(). */
  readonly #clashes = new Set<string>();
  #options: Partial<Omit<ChoreographyEngineOptions, 'agents'>> = {};

  /** @internal Use {@link ChoreographyEngine.builder}. */
  constructor(create: (options: ChoreographyEngineOptions) => ChoreographyEngine) {
    this.#create = create;
  }

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
    for (const [id, agent] of agents instanceof Map ? agents : Object.entries(agents)) this.agent(id, agent);
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
    return this.#create({ ...this.#options, agents: new Map(this.#agents) } as ChoreographyEngineOptions);
  }
}
