import { ConfigError, parseConfig } from '@rxagents/core';
import { ChoreographySpecBuilder } from './ChoreographySpecBuilder';
import { type ChoreographySpecJson, ChoreographySpecSchema } from './ChoreographySpecSchema';
import type { Interaction } from './Interaction';

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
   * Starts a spec builder: the fluent form, as in the Java coordination library these APIs follow.
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
    return new ChoreographySpecBuilder(name, (json) => new ChoreographySpec(json));
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
