import { ConfigError, configRules } from '@rxagents/core';
import { z } from 'zod';

const eventName = () => configRules.id();

/**
 * The zod schema of one interaction of a {@link ChoreographySpec}, as it appears in JSON.
 *
 * @remarks
 * Strict: unknown keys are rejected. Ids and event names must be non-blank strings. `trigger` is one event name, or a non-empty list of distinct
 * event names (an AND-join: the interaction waits until every listed event has been published).
 * `emits` may be `null` (or left out): the interaction then publishes nothing when it succeeds.
 * `timeout`, in milliseconds, bounds this interaction's agent call: at most `MAX_DELAY_MS` (about
 * 24.8 days), or `Infinity` for no limit (the same as leaving it out).
 *
 * @example
 * ```ts
 * import { InteractionSchema } from '@rxagents/choreography';
 *
 * const interaction = InteractionSchema.parse({
 *   id: 'draft', source: 'researcher', target: 'writer',
 *   trigger: 'researched', emits: 'drafted', task: 'Write a draft',
 * });
 * console.log(interaction.emits); // drafted
 * ```
 */
export const InteractionSchema = z.strictObject({
  id: configRules.id(),
  source: configRules.id(),
  target: configRules.id(),
  trigger: z.union(
    [
      eventName(),
      z
        .array(eventName(), { error: 'must be an event name or a non-empty list of event names' })
        .min(1, 'must list at least one event')
        .refine((events) => new Set(events).size === events.length, 'must not list an event twice'),
    ],
    { error: 'must be an event name or a non-empty list of event names' },
  ),
  emits: eventName().nullable().default(null),
  task: configRules.nonEmptyString(),
  timeout: configRules.timeoutMs().optional(),
});

/**
 * One interaction of a {@link ChoreographySpec}: who runs what, on which event, and what it emits.
 *
 * @remarks
 * The validated, frozen form found in {@link ChoreographySpec.interactions}: `emits` is always present
 * (`null` for none). Use {@link triggersOf} to read `trigger` as a list.
 *
 * @example
 * ```ts
 * import { ChoreographySpec, type Interaction } from '@rxagents/choreography';
 *
 * const spec = ChoreographySpec.builder('article')
 *   .initialEvent('start')
 *   .interaction('research', 'system', 'researcher', 'start', 'researched', 'Collect sources')
 *   .interaction('draft', 'researcher', 'writer', 'researched', null, 'Write a draft')
 *   .build();
 * const final: Interaction[] = spec.interactions.filter((interaction) => interaction.emits === null);
 * console.log(final.map(({ id, target }) => `${id} -> ${target}`)); // [ 'draft -> writer' ]
 * ```
 */
export interface Interaction {
  /** Unique within the spec. */
  readonly id: string;
  /** The agent the work comes from; used for deadlock detection only. */
  readonly source: string;
  /** The agent that runs the interaction. */
  readonly target: string;
  /** The event that triggers it, or every event it waits for (an AND-join). */
  readonly trigger: string | readonly string[];
  /** The event published with the output on success, or `null` for none. */
  readonly emits: string | null;
  /** What the target agent is asked to do. */
  readonly task: string;
  /** A time limit for the agent call, in milliseconds. */
  readonly timeout?: number;
}

/**
 * An interaction as written by hand or in JSON (`emits` may be left out).
 *
 * @remarks
 * The input side of {@link InteractionSchema}, accepted by the builder's object form
 * (`.interaction(definition)`), which is the only way to declare an AND-join `trigger`.
 *
 * @example
 * ```ts
 * import { ChoreographySpec, InteractionSchema, type InteractionDefinition } from '@rxagents/choreography';
 *
 * const review: InteractionDefinition = {
 *   id: 'review', source: 'writer', target: 'reviewer',
 *   trigger: ['drafted', 'fact-checked'], task: 'Review the checked draft', timeout: 60_000,
 * };
 * console.log(InteractionSchema.parse(review).emits); // null
 * const spec = ChoreographySpec.builder('review').initialEvent('drafted').initialEvent('fact-checked').interaction(review).build();
 * ```
 */
export type InteractionDefinition = z.input<typeof InteractionSchema>;

/**
 * The events an interaction waits for, as a list (one event, or every event of an AND-join).
 *
 * @example
 * ```ts
 * import { ChoreographySpec, triggersOf } from '@rxagents/choreography';
 *
 * const spec = ChoreographySpec.builder('join')
 *   .initialEvent('start')
 *   .interaction({ id: 'merge', source: 'a', target: 'b', trigger: ['x', 'y'], emits: null, task: 'Merge' })
 *   .build();
 * console.log(triggersOf(spec.interactions[0]!)); // [ 'x', 'y' ]
 * ```
 */
export function triggersOf(interaction: Interaction): readonly string[] {
  const trigger = (interaction as Partial<Interaction> | null)?.trigger;
  if (typeof trigger === 'string') return [trigger];
  if (!Array.isArray(trigger)) throw new ConfigError('triggersOf', [{ path: 'interaction', rule: 'must be an interaction (with a trigger)', received: interaction }]);
  return trigger;
}
