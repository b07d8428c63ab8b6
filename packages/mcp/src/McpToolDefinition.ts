import { configRules, type Agent, type RunEvent } from '@rxagents/core';
import type { Observable } from 'rxjs';
import { z } from 'zod';

/**
 * One agent or runnable of ours served as an MCP tool: part of {@link McpServerOptions}.
 *
 * @remarks
 * Give exactly one of `agent` (called in a run of its own, named after the tool) or `events` (any
 * runnable's `events$`, for example `(args) => Patterns.debate(...).events$(args.input)`). `inputSchema`
 * is a zod object schema, default `z.object({ input: z.string() })`; the MCP SDK checks each call's
 * arguments against it and refuses a bad argument before anything runs. An agent is given `input` under
 * the default schema, else the arguments as JSON text.
 *
 * @example
 * ```ts
 * import { defineAgent } from '@rxagents/core';
 * import type { McpToolDefinition } from '@rxagents/mcp';
 *
 * const summarizer = defineAgent('summarizer', async (input) => `In short: ${input.slice(0, 40)}`);
 * const tool: McpToolDefinition = { name: 'summarize', description: 'Summarize a text', agent: summarizer };
 * ```
 */
export interface McpToolDefinition {
  /** The tool's name, as clients call it: 1 to 128 letters, digits, `_`, `-` or `.`. */
  readonly name: string;
  readonly title?: string;
  /** What the tool does, for the model that picks it. */
  readonly description?: string;
  /** The arguments, a zod object schema. Default `z.object({ input: z.string() })`. */
  readonly inputSchema?: z.ZodObject;
  /** The agent that answers: its reply is the tool's result. */
  readonly agent?: Agent;
  /** The run events of one call of any runnable, given the checked arguments: its root `run-end` output is the tool's result. */
  readonly events?: (args: Record<string, unknown>) => Observable<RunEvent>;
}

/** @internal The schema of one {@link McpToolDefinition}. */
export const McpToolDefinitionSchema = z
  .strictObject({
    name: z.string({ error: 'must be a tool name' }).regex(/^[A-Za-z0-9_.-]{1,128}$/, 'must be 1 to 128 letters, digits, "_", "-" or "."'),
    title: z.string({ error: 'must be a string' }).optional(),
    description: z.string({ error: 'must be a string' }).optional(),
    inputSchema: z.custom<z.ZodObject>((value) => value instanceof z.ZodObject, { error: 'must be a zod object schema (z.object({ ... }))' }).optional(),
    agent: z
      .custom<Agent>((value) => typeof value === 'object' && value !== null && typeof (value as Agent).chat === 'function' && typeof (value as Agent).id === 'string', {
        error: 'must be an agent (with id and chat)',
      })
      .optional(),
    events: configRules.function<(args: Record<string, unknown>) => Observable<RunEvent>>().optional(),
  })
  .refine((tool) => (tool.agent === undefined) !== (tool.events === undefined), { error: 'needs exactly one of agent and events' });
