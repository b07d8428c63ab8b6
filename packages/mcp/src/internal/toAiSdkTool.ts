import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpError, type Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import { configRules, emitCustom, type RunContext } from '@rxagents/core';
import { dynamicTool, jsonSchema, type JSONSchema7, type Tool } from 'ai';
import { McpToolError } from '../errors/McpToolError';

/** @internal The name of the `custom` run event a tool's progress notification becomes. */
export const MCP_PROGRESS_EVENT = 'mcp-progress';

/** @internal One content item of a tool result, as far as the adapter reads it. */
interface ContentItem {
  readonly type: string;
  readonly text?: unknown;
}

/**
 * @internal One MCP tool as an AI SDK tool that calls it on `client`.
 *
 * @remarks
 * The input schema is the tool's JSON Schema as is (`jsonSchema()`); the AI SDK checks the model's input
 * against it. `execute` calls `tools/call` with the AI SDK's abort signal (its abort makes the MCP SDK send
 * `notifications/cancelled`), asks for progress when the call has a run, and turns each progress
 * notification into a `custom` event under the agent's call. The result is the tool's structured content
 * if it has some, else its text (the text items joined) when every item is text, else its content items.
 */
export function toAiSdkTool(client: Client, tool: McpTool): Tool {
  const name = tool.name;
  return dynamicTool({
    ...(tool.description === undefined ? {} : { description: tool.description }),
    inputSchema: jsonSchema(tool.inputSchema as JSONSchema7),
    execute: async (input, { abortSignal, toolCallId, experimental_context }) => {
      const run = runOf(experimental_context);
      let result: Awaited<ReturnType<Client['callTool']>>;
      try {
        result = await client.callTool({ name, arguments: (input ?? {}) as Record<string, unknown> }, undefined, {
          ...(abortSignal === undefined ? {} : { signal: abortSignal }),
          resetTimeoutOnProgress: true,
          ...(run === undefined
            ? {}
            : {
                onprogress: ({ progress, total, message }) =>
                  emitCustom(run, MCP_PROGRESS_EVENT, { toolName: name, toolCallId, progress, ...(total === undefined ? {} : { total }), ...(message === undefined ? {} : { message }) }),
              }),
        });
      } catch (error) {
        if (abortSignal?.aborted) throw abortSignal.reason;
        const message = error instanceof Error ? error.message : String(error);
        throw new McpToolError(name, message, error instanceof McpError ? error.code : undefined, error);
      }
      const content = Array.isArray(result.content) ? (result.content as ContentItem[]) : [];
      if (result.isError === true) throw new McpToolError(name, textOf(content) ?? `The MCP tool "${name}" failed`);
      if (result.structuredContent !== undefined) return result.structuredContent;
      return textOf(content) ?? content;
    },
  });
}

/** The call's run, from what `aiSdkAgent` gives every tool as `experimental_context`. */
function runOf(context: unknown): RunContext | undefined {
  if (typeof context !== 'object' || context === null) return undefined;
  const run: unknown = (context as { run?: unknown }).run;
  return configRules.isRunContext(run) ? run : undefined;
}

/** The text items joined, when every item is text (and there is one); otherwise `undefined`. */
function textOf(content: readonly ContentItem[]): string | undefined {
  if (content.length === 0 || !content.every((item) => item.type === 'text' && typeof item.text === 'string')) return undefined;
  return content.map((item) => item.text as string).join('');
}
