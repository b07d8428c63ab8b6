import { ConfigError } from '@rxagents/core';

/**
 * The tool names an agent declares in an optional `tools` array; `undefined` when it declares none.
 *
 * `tools` may be an array or a record of tools by name (the AI SDK's `ToolSet`: its keys are the names). In an
 * array, a tool may be a name, an object with a `name` (or OpenAI's `{ function: { name } }`), or a named
 * function (read by its `name`, as PraisonAI does). Anything else, an anonymous function or an object without a name
 * included, is refused with a `ConfigError` naming its index (`tools.2`): a tool that vanished from
 * `allowedTools` would silently leave the target without it.
 */
export function toolNamesOf(agent: object, subject: string, at = ''): string[] | undefined {
  const tools = (agent as { readonly tools?: unknown }).tools;
  if (tools === undefined) return undefined;
  if (!Array.isArray(tools)) {
    if (isRecord(tools)) return Object.keys(tools);
    throw new ConfigError(subject, [{ path: `${at}tools`, rule: 'must be an array of tools (names, { name } objects or named functions) or a record of tools by name', received: tools }]);
  }
  return (tools as unknown[]).map((tool, index) => {
    const name = nameOf(tool);
    if (name === undefined) {
      throw new ConfigError(subject, [{ path: `${at}tools.${index}`, rule: 'must be a tool name, a { name } or { function: { name } } object, or a named function', received: tool }]);
    }
    return name;
  });
}

function nameOf(tool: unknown): string | undefined {
  if (typeof tool === 'string') return tool.trim() === '' ? undefined : tool;
  if (typeof tool === 'function') return tool.name === '' ? undefined : tool.name;
  if (typeof tool !== 'object' || tool === null) return undefined;
  const named = tool as { readonly name?: unknown; readonly function?: { readonly name?: unknown } };
  const name = typeof named.name === 'string' ? named.name : typeof named.function === 'object' && named.function !== null ? named.function.name : undefined;
  return typeof name === 'string' && name.trim() !== '' ? name : undefined;
}

/** A plain object (`{ search: tool }`) or one made with `Object.create(null)`, as a `ToolSet` may be. */
function isRecord(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}
