import { ConfigError, parseConfig } from '@rxagents/core';
import { type ChoreographySpecJson, ChoreographySpecSchema } from './ChoreographySpecSchema';
import type { Interaction, InteractionDefinition } from './Interaction';

/** Set once, by the class's static block, to the only code that may read a spec's private memo. */
let derive: (spec: ChoreographySpec, compute: (spec: ChoreographySpec) => unknown) => unknown;

/**
 * A choreography: the initial events and the interactions they set off, with no agent in charge.
 *
 * @remarks
 * Each interaction names the event that triggers it (or, in object form, a list of events it waits
 * for: an AND-join), the agent that runs it (`target`), the task, and optionally the event it emits
 * when done. `source` is used for deadlock detection only. Build one with
 * {@link ChoreographySpec.builder} or load one from JSON with {@link ChoreographySpec.parse}; both
 * validate with {@link ChoreographySpecSchema} and throw `ConfigError` on a bad spec. A spec is
 * immutable.
 *
 * @example
 * ```ts
 * import { ChoreographySpec } from '@rxagents/choreography';
 *
 * const spec = ChoreographySpec.builder('article')
 *   .initialEvent('start')
 *   //           id          source        target        trigger       emits         task
 *   .interaction('research', 'system',     'researcher', 'start',      'researched', 'Collect sources on agent coordination')
 *   .interaction('draft',    'researcher', 'writer',     'researched', 'drafted',    'Write a draft from the research')
 *   .interaction('review',   'writer',     'reviewer',   'drafted',    null,         'Review the draft')
 *   .build();
 * console.log(spec.interactions.length); // 3
 * ```
 *
 * @see {@link ChoreographyEngine} to run it, {@link DeadlockDetector} to check it.
 */
export class ChoreographySpec {
  /** The spec's name, used in logs and errors. */
  readonly name: string;
  /** The events the engine publishes when a run starts. */
  readonly initialEvents: readonly string[];
  /** The interactions, in the order they were declared. */
  readonly interactions: readonly Interaction[];
  readonly #byId: ReadonlyMap<string, Interaction>;
  /** What engines derive from the spec (see {@link derivedFrom}), computed once: a spec never changes. */
  readonly #derived = new Map<(spec: ChoreographySpec) => unknown, unknown>();

  static {
    derive = (spec, compute) => {
      const derived = spec.#derived;
      if (!derived.has(compute)) derived.set(compute, compute(spec));
      return derived.get(compute);
    };
  }

  private constructor(json: ChoreographySpecJson) {
    const parsed = parseConfig(ChoreographySpecSchema, json, 'ChoreographySpec');
    this.name = parsed.name;
    this.initialEvents = Object.freeze([...parsed.initialEvents]);
    this.interactions = Object.freeze(
      // Built as a literal with a fixed field order, so every interaction shares one V8 hidden class
      // (a frozen spread copy gets a class of its own, and every read of it becomes a megamorphic miss).
      parsed.interactions.map(
        (interaction): Interaction =>
          Object.freeze({
            id: interaction.id,
            source: interaction.source,
            target: interaction.target,
            trigger: typeof interaction.trigger === 'string' ? interaction.trigger : Object.freeze([...interaction.trigger]),
            emits: interaction.emits,
            task: interaction.task,
            timeout: interaction.timeout,
          }),
      ),
    );
    this.#byId = new Map(this.interactions.map((interaction) => [interaction.id, interaction]));
    Object.freeze(this);
  }

  /**
   * Starts a spec builder: the fluent form of a spec (the object form and JSON build the same spec).
   *
   * @example
   * ```ts
   * import { ChoreographySpec } from '@rxagents/choreography';
   *
   * const spec = ChoreographySpec.builder('ping').initialEvent('go').interaction('ping', 'a', 'b', 'go', null, 'Say ping').build();
   * console.log(spec.name); // ping
   * ```
   */
  static builder(name: string): ChoreographySpecBuilder {
    return new ChoreographySpecBuilder(name);
  }

  /**
   * Loads a spec from JSON text or from already-parsed JSON data.
   *
   * @remarks
   * Validation is strict ({@link ChoreographySpecSchema}): unknown keys, including `__proto__` and
   * `constructor`, are rejected, and the spec is built from the validated copy, never from the input
   * object, so a hostile file cannot pollute any prototype.
   *
   * @throws `ConfigError` when the text is not JSON or the data is not a valid spec.
   *
   * @example
   * ```ts
   * import { ChoreographySpec } from '@rxagents/choreography';
   *
   * const spec = ChoreographySpec.parse(`{
   *   "name": "greeting",
   *   "initialEvents": ["start"],
   *   "interactions": [
   *     { "id": "greet", "source": "system", "target": "greeter", "trigger": "start", "emits": null, "task": "Say hello" }
   *   ]
   * }`);
   * console.log(spec.interactions[0]?.target); // greeter
   * ```
   */
  static parse(json: unknown): ChoreographySpec {
    if (typeof json !== 'string') return new ChoreographySpec(json as ChoreographySpecJson);
    let data: unknown;
    try {
      data = JSON.parse(json);
    } catch (error) {
      throw new ConfigError('ChoreographySpec', [
        { path: '', rule: `must be valid JSON (${error instanceof Error ? error.message : String(error)})`, received: json },
      ]);
    }
    return new ChoreographySpec(data as ChoreographySpecJson);
  }

  /**
   * The interaction with this id, if any (a map lookup).
   *
   * @example
   * ```ts
   * import { ChoreographySpec } from '@rxagents/choreography';
   *
   * const spec = ChoreographySpec.builder('ping').initialEvent('go').interaction('ping', 'a', 'b', 'go', null, 'Say ping').build();
   * console.log(spec.interaction('ping')?.task); // Say ping
   * ```
   */
  interaction(id: string): Interaction | undefined {
    return this.#byId.get(id);
  }

  /**
   * The spec as plain JSON data, which {@link ChoreographySpec.parse} reads back.
   *
   * @example
   * ```ts
   * import { ChoreographySpec } from '@rxagents/choreography';
   *
   * const spec = ChoreographySpec.builder('ping').initialEvent('go').interaction('ping', 'a', 'b', 'go', null, 'Say ping').build();
   * const copy = ChoreographySpec.parse(JSON.stringify(spec));
   * console.log(copy.toJSON().interactions[0]?.id); // ping
   * ```
   */
  toJSON(): ChoreographySpecJson {
    return {
      name: this.name,
      initialEvents: [...this.initialEvents],
      interactions: this.interactions.map(({ id, source, target, trigger, emits, task, timeout }) => ({
        id,
        source,
        target,
        trigger: typeof trigger === 'string' ? trigger : [...trigger],
        emits,
        task,
        // JSON has no Infinity; an infinite timeout means the same as none.
        ...(timeout === undefined || timeout === Infinity ? {} : { timeout }),
      })),
    };
  }
}

/**
 * What `compute` derives from `spec`, computed on the first call for this spec and function and kept
 * with the spec: a spec is immutable, so the trigger index, the reachable events and the cycle check
 * that every engine needs are computed once per spec rather than once per engine, which is once per
 * run. `compute` must be a module-level function, so that it is the same key on every call.
 *
 * @internal
 */
export function derivedFrom<T>(spec: ChoreographySpec, compute: (spec: ChoreographySpec) => T): T {
  return derive(spec, compute) as T;
}

/**
 * Builds a {@link ChoreographySpec} step by step, as sugar over its JSON form; get one from {@link ChoreographySpec.builder}.
 *
 * @remarks
 * Nothing is checked until {@link ChoreographySpecBuilder.build}, which validates everything at once
 * and throws one `ConfigError` listing every problem (missing fields, duplicate ids, no interaction,
 * no initial event).
 *
 * @example
 * ```ts
 * import { ChoreographySpec } from '@rxagents/choreography';
 *
 * const spec = ChoreographySpec.builder('launch')
 *   .initialEvent('start')
 *   .interaction('design', 'pm', 'designer', 'start', 'designed', 'Design the page')
 *   .interaction('copy', 'pm', 'copywriter', 'start', 'written', 'Write the copy')
 *   .interaction({ id: 'ship', source: 'designer', target: 'developer', trigger: ['designed', 'written'], emits: null, task: 'Build the page' })
 *   .build();
 * console.log(spec.interactions.map((i) => i.id)); // [ 'design', 'copy', 'ship' ]
 * ```
 */
export class ChoreographySpecBuilder {
  readonly #name: string;
  readonly #initialEvents: string[] = [];
  readonly #interactions: InteractionDefinition[] = [];

  /** Prefer {@link ChoreographySpec.builder}, which reads better in a chain. */
  constructor(name: string) {
    this.#name = name;
  }

  /** Adds an event the engine publishes when the run starts. */
  initialEvent(event: string): this {
    this.#initialEvents.push(event);
    return this;
  }

  /**
   * Adds an interaction: when `trigger` is published, `target` runs `task`, then publishes `emits`
   * (unless it is `null`) with its output. `source` is used for deadlock detection only.
   */
  interaction(id: string, source: string, target: string, trigger: string, emits: string | null, task: string): this;
  /** Adds an interaction in object form; `trigger` may list several events (an AND-join). */
  interaction(definition: InteractionDefinition): this;
  interaction(
    idOrDefinition: string | InteractionDefinition,
    source?: string,
    target?: string,
    trigger?: string,
    emits?: string | null,
    task?: string,
  ): this {
    this.#interactions.push(
      typeof idOrDefinition === 'object' && idOrDefinition !== null
        ? { ...idOrDefinition }
        : ({ id: idOrDefinition, source, target, trigger, emits, task } as InteractionDefinition),
    );
    return this;
  }

  /**
   * Validates and returns the spec.
   *
   * @throws `ConfigError` naming every broken rule, for example
   * `ChoreographySpec: interactions.1.id must be unique (interactions.0.id is also "draft"), got "draft"`.
   */
  build(): ChoreographySpec {
    return ChoreographySpec.parse({ name: this.#name, initialEvents: [...this.#initialEvents], interactions: [...this.#interactions] });
  }
}
