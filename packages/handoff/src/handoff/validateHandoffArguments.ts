import type { z } from 'zod';
import type { HandoffSides } from '../errors/HandoffDepthError';
import { HandoffValidationError } from '../errors/HandoffValidationError';

/**
 * The handoff's arguments as its `inputSchema` reads them (a JSON string is parsed first, a blank one is
 * `{}`); without a schema, the raw arguments. Throws {@link HandoffValidationError} naming the tool.
 */
export function validateHandoffArguments(schema: z.ZodType | undefined, raw: unknown, toolName: string, sides: HandoffSides): unknown {
  if (schema === undefined) return raw;
  let value: unknown = raw ?? {};
  if (typeof value === 'string') {
    try {
      value = value.trim() === '' ? {} : (JSON.parse(value) as unknown);
    } catch (error) {
      throw new HandoffValidationError(toolName, [`arguments are not valid JSON: ${(error as Error).message}`], error, sides);
    }
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    throw new HandoffValidationError(
      toolName,
      parsed.error.issues.map((issue) => `${issue.path.length === 0 ? 'arguments' : issue.path.join('.')}: ${issue.message}`),
      parsed.error,
      sides,
    );
  }
  return parsed.data;
}
