import type { ChoreographySpec } from './ChoreographySpec';
import type { ChoreographySpecJson } from './ChoreographySpecSchema';
import type { InteractionDefinition } from './Interaction';

/**
 * Builds a {@link ChoreographySpec} step by step; get one from {@link ChoreographySpec.builder}.
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
  readonly #create: (json: ChoreographySpecJson) => ChoreographySpec;
  readonly #initialEvents: string[] = [];
  readonly #interactions: InteractionDefinition[] = [];

  /** @internal Use {@link ChoreographySpec.builder}. */
  constructor(name: string, create: (json: ChoreographySpecJson) => ChoreographySpec) {
    this.#name = name;
    this.#create = create;
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
    return this.#create({ name: this.#name, initialEvents: [...this.#initialEvents], interactions: [...this.#interactions] });
  }
}
