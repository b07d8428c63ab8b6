import { ConfigError } from '@rxagents/core';
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
 * name in an object without a prototype, so any name works, `__proto__`, `constructor` and `toString`
 * included, and a call of a name that was not offered never finds an `Object.prototype` member. Two tools
 * with the same name would leave the model's call ambiguous, so they are a `ConfigError`.
 *
 * @param definitions - The tools offered to the model.
 * @returns A `ToolSet` for `streamText({ tools })`.
 * @throws {@link @rxagents/core!ConfigError | ConfigError} when two tools have the same name.
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
  if (!Array.isArray(definitions as unknown)) throw new ConfigError('AI SDK tools', [{ path: 'tools', rule: 'must be an array of tool definitions', received: definitions }]);
  const tools: ToolSet = Object.create(null) as ToolSet;
  definitions.forEach((definition: Partial<ToolDefinition> | null, index) => {
    if (typeof definition?.function?.name !== 'string') {
      throw new ConfigError('AI SDK tools', [{ path: `tools.${index}`, rule: 'must be a tool definition ({ type: "function", function: { name, description, parameters } })', received: definition }]);
    }
    const { name, description, parameters } = definition.function;
    if (Object.hasOwn(tools, name)) {
      throw new ConfigError('AI SDK tools', [{ path: `tools.${index}.function.name`, rule: 'is offered twice (tool names must be unique)', received: name }]);
    }
    // defineProperty, not assignment: `tools['__proto__'] = ...` would set the prototype instead.
    Object.defineProperty(tools, name, {
      value: tool({ description, inputSchema: jsonSchema(parameters as JSONSchema7) }),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  });
  return tools;
}
