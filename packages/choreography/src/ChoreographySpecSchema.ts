import { configRules } from '@rxagents/core';
import { z } from 'zod';
import { InteractionSchema } from './Interaction';

/**
 * The zod schema of a {@link ChoreographySpec} in JSON form.
 *
 * @remarks
 * Strict at every level: an unknown key (including `__proto__` and `constructor`) is rejected, so a spec
 * loaded from a file cannot smuggle anything in. At least one initial event and one interaction are
 * required, interaction ids must be unique, and the name, event names, ids, sources and targets must
 * be non-blank. Use it to validate files or to generate a JSON Schema
 * with `z.toJSONSchema(ChoreographySpecSchema)`.
 *
 * @example
 * ```ts
 * import { ChoreographySpecSchema } from '@rxagents/choreography';
 *
 * const result = ChoreographySpecSchema.safeParse({ name: 'empty', initialEvents: ['start'], interactions: [] });
 * console.log(result.success); // false
 * ```
 */
export const ChoreographySpecSchema = z
  .strictObject({
    name: configRules.id(),
    initialEvents: z
      .array(configRules.id(), { error: 'must be a list of event names' })
      .min(1, 'must list at least one initial event'),
    interactions: z.array(InteractionSchema, { error: 'must be a list of interactions' }).min(1, 'must list at least one interaction'),
  })
  .superRefine((spec, context) => {
    const firstIndex = new Map<string, number>();
    spec.interactions.forEach((interaction, index) => {
      const first = firstIndex.get(interaction.id);
      if (first === undefined) {
        firstIndex.set(interaction.id, index);
        return;
      }
      context.addIssue({
        code: 'custom',
        path: ['interactions', index, 'id'],
        message: `must be unique (interactions.${first}.id is also "${interaction.id}")`,
        input: interaction.id,
      });
    });
  });

/**
 * A {@link ChoreographySpec} as plain JSON data (what `toJSON()` returns and `parse()` accepts).
 *
 * @remarks
 * The input side of {@link ChoreographySpecSchema}: `emits` may be left out (it defaults to `null`).
 * Type a spec kept in code or a config file with it, then validate it with the schema or load it with
 * {@link ChoreographySpec.parse}.
 *
 * @example
 * ```ts
 * import { ChoreographySpec, ChoreographySpecSchema, type ChoreographySpecJson } from '@rxagents/choreography';
 *
 * const json: ChoreographySpecJson = {
 *   name: 'greeting',
 *   initialEvents: ['start'],
 *   interactions: [{ id: 'greet', source: 'system', target: 'greeter', trigger: 'start', task: 'Say hello' }],
 * };
 * console.log(ChoreographySpecSchema.safeParse(json).success); // true
 * console.log(ChoreographySpec.parse(json).interactions[0]?.emits); // null
 * ```
 */
export type ChoreographySpecJson = z.input<typeof ChoreographySpecSchema>;
