import { z } from 'zod';
import { ConfigError } from '@rxagents/core';

/**
 * Refuses an `inputSchema` that has no JSON Schema (a date, a set): {@link Handoff.toolDefinition} would
 * throw on every call, failing every routing agent that offers the handoff, instead of once, here.
 */
export function checkToolParameters(schema: z.ZodType): void {
  try {
    toolParameters(schema);
  } catch (error) {
    throw new ConfigError('Handoff config', [{ path: 'inputSchema', rule: `must be representable as JSON Schema, the tool's parameters (${(error as Error).message})`, received: schema }]);
  }
}

/** The parameters of a handoff tool without an `inputSchema`: an optional free-text `reason`, nothing else. */
export function reasonParameters(): Record<string, unknown> {
  return {
    type: 'object',
    properties: { reason: { type: 'string', description: 'Why the task is transferred (optional)' } },
    additionalProperties: false,
  };
}

/**
 * The JSON Schema of what the model sends: zod's input side (a field with a default is optional, a transform
 * is described by what it takes; the output side said a defaulted field was required), with objects closed
 * (`additionalProperties: false`) where the output side closes them.
 */
export function toolParameters(schema: z.ZodType): Record<string, unknown> {
  const parameters = { ...(z.toJSONSchema(schema, { io: 'input', override: closeObject }) as Record<string, unknown>) };
  delete parameters.$schema;
  return parameters;
}

function closeObject(context: { readonly zodSchema: z.core.$ZodType; readonly jsonSchema: z.core.JSONSchema.BaseSchema }): void {
  const def = context.zodSchema._zod.def as { readonly type: string; readonly catchall?: unknown };
  if (def.type === 'object' && def.catchall === undefined && context.jsonSchema.additionalProperties === undefined) context.jsonSchema.additionalProperties = false;
}
