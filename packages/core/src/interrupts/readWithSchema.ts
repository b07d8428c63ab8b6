import * as z from 'zod';
import { ConfigError } from '../errors/ConfigError';
import type { ReadAnswer } from '../internal/interrupts/interrupt';
import type { InterruptRequest } from '../internal/interrupts/InterruptRequest';

/** The JSON Schema an interrupt's event carries for `schema`'s input (what an answer must be). */
export function jsonSchemaOf(schema: z.ZodType, what: string): InterruptRequest['schema'] {
  try {
    return JSON.parse(JSON.stringify(z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }))) as InterruptRequest['schema'];
  } catch (error) {
    throw new ConfigError(what, [{ path: 'options.schema', rule: `must be a zod schema that JSON Schema can describe (${error instanceof Error ? error.message : String(error)})`, received: schema }]);
  }
}

/** Reads an answer with `schema`: its output, or each broken rule without the value that broke it. */
export function readWithSchema<T>(schema: z.ZodType<T>): ReadAnswer<T> {
  return (answer) => {
    const checked = schema.safeParse(answer);
    if (checked.success) return { value: checked.data };
    return { issues: checked.error.issues.map((issue) => ({ path: issue.path.map(String).join('.'), rule: issue.message })) };
  };
}
