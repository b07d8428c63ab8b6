import type { ToolSet } from 'ai';
import { z } from 'zod';

/**
 * @internal The zod rule for an AI SDK `ToolSet`: a plain object (or one without a prototype, as
 * `toAiSdkTools` builds) of tool objects. Checked as given, not rebuilt, so every tool keeps its
 * `execute`, `needsApproval` and schemas, and a tool named `__proto__` is kept too.
 */
export const toolSetRule = (): z.ZodType<ToolSet> =>
  z.custom<ToolSet>(
    (value) => {
      if (typeof value !== 'object' || value === null) return false;
      const prototype: unknown = Object.getPrototypeOf(value);
      if (prototype !== Object.prototype && prototype !== null) return false;
      return Object.values(value).every((tool: unknown) => typeof tool === 'object' && tool !== null);
    },
    { error: "must be an object of AI SDK tools (tool({ description, inputSchema, execute })), keyed by the tools' names" },
  );
