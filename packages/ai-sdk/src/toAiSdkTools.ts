import type { ToolDefinition } from '@rxagents/handoff';
import { jsonSchema, tool, type JSONSchema7, type ToolSet } from 'ai';

/**
 * Converts rxagents {@link ToolDefinition}s (OpenAI function shape, JSON Schema parameters) into an AI SDK
 * `ToolSet` whose tools have no `execute`.
 *
 * @remarks
 * Without `execute` the SDK stops at the model's tool calls and hands them back: the caller (a routing
 * agent) decides what a call does. Parameters are wrapped with `jsonSchema()` and no validator, so the SDK
 * only parses the arguments' JSON; validating them is the handoff's `inputSchema`'s job. Tools are keyed by
 * name; with duplicate names the last one wins.
 *
 * @param definitions - The tools offered to the model.
 * @returns A `ToolSet` for `streamText({ tools })`.
 *
 * @example
 * ```ts
 * import { toAiSdkTools } from '@rxagents/ai-sdk';
 *
 * const tools = toAiSdkTools([
 *   {
 *     type: 'function',
 *     function: { name: 'transfer_to_billing', description: 'Hand off to Billing', parameters: { type: 'object', properties: {} } },
 *   },
 * ]);
 * console.log(Object.keys(tools)); // [ 'transfer_to_billing' ]
 * ```
 */
export function toAiSdkTools(definitions: readonly ToolDefinition[]): ToolSet {
  const tools: ToolSet = {};
  for (const definition of definitions) {
    tools[definition.function.name] = tool({
      description: definition.function.description,
      inputSchema: jsonSchema(definition.function.parameters as JSONSchema7),
    });
  }
  return tools;
}
