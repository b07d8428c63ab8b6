import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import { configRules, parseConfig } from '@rxagents/core';
import { z } from 'zod';
import { McpToolDefinitionSchema, type McpToolDefinition } from './McpToolDefinition';
import { callAsTool } from './internal/callAsTool';

/**
 * Options of {@link mcpServer}, {@link serveMcpOverStdio} and {@link serveMcpOverHttp}.
 *
 * @example
 * ```ts
 * import { defineAgent } from '@rxagents/core';
 * import type { McpServerOptions } from '@rxagents/mcp';
 *
 * const echo = defineAgent('echo', async (input) => input);
 * const options: McpServerOptions = { name: 'team', version: '1.0.0', tools: [{ name: 'echo', agent: echo }] };
 * ```
 */
export interface McpServerOptions {
  /** The server's name, told to clients when they connect. */
  readonly name: string;
  /** The server's version, told to clients. */
  readonly version: string;
  /** Instructions for the client's model, sent when it connects. */
  readonly instructions?: string;
  /** The tools, at least one, names unique. */
  readonly tools: readonly McpToolDefinition[];
}

/**
 * The zod schema of {@link McpServerOptions}: strict; a non-empty name and version, at least one tool, tool names unique.
 *
 * @remarks
 * Each tool: a name of 1 to 128 letters, digits, `_`, `-` or `.`; a zod object `inputSchema` if any; exactly
 * one of `agent` and `events`.
 *
 * @example
 * ```ts
 * import { McpServerOptionsSchema } from '@rxagents/mcp';
 *
 * const result = McpServerOptionsSchema.safeParse({ name: 'team', version: '1.0.0', tools: [] });
 * console.log(result.success ? 'ok' : result.error.issues[0]?.message); // must hold at least one tool
 * ```
 */
export const McpServerOptionsSchema = z.strictObject({
  name: configRules.nonEmptyString(),
  version: configRules.nonEmptyString(),
  instructions: z.string({ error: 'must be a string' }).optional(),
  tools: z
    .array(McpToolDefinitionSchema, { error: 'must be an array of tools' })
    .min(1, 'must hold at least one tool')
    .refine((tools) => new Set(tools.map((tool) => tool.name)).size === tools.length, { error: 'must not hold two tools of one name' }),
});

/** The default arguments of a served tool: one string, the agent's input. */
const DEFAULT_INPUT = z.object({ input: z.string().describe('The input') });

/**
 * An MCP SDK `McpServer` serving agents or runnables of ours as tools; connect it to any MCP transport.
 *
 * @remarks
 * Each tool call runs the tool's agent (in a run named after the tool) or its `events`, and answers with
 * the run's output as text. While it runs, every text delta of the run (of every agent in it, nested ones
 * included) is sent as a `notifications/progress` with the delta as its `message` and the count of deltas
 * so far as its `progress`, when the client asked for progress (a `progressToken`). A client's
 * `notifications/cancelled` for the call (the MCP SDK sends it when the request's signal aborts)
 * unsubscribes the run, which aborts every agent in it. A failed run answers with an error result
 * (`isError: true`, the error's message). Arguments are checked by the MCP SDK against the tool's
 * `inputSchema`: a bad one is refused with an error result naming the rule, and nothing runs. One server
 * holds one connection (the MCP SDK's rule): {@link serveMcpOverHttp} makes one per session.
 *
 * @throws {@link @rxagents/core!ConfigError | ConfigError} when an option is invalid.
 *
 * @example
 * ```ts
 * import { Client } from '@modelcontextprotocol/sdk/client/index.js';
 * import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
 * import { defineAgent } from '@rxagents/core';
 * import { mcpServer } from '@rxagents/mcp';
 *
 * const shouter = defineAgent('shouter', async (input) => input.toUpperCase());
 * const server = mcpServer({ name: 'team', version: '1.0.0', tools: [{ name: 'shout', description: 'Shout the input', agent: shouter }] });
 * const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
 * await server.connect(serverSide);
 * const client = new Client({ name: 'app', version: '1.0.0' });
 * await client.connect(clientSide);
 * const result = await client.callTool({ name: 'shout', arguments: { input: 'hello' } });
 * console.log(result.content); // [ { type: 'text', text: 'HELLO' } ]
 * await client.close();
 * ```
 */
export function mcpServer(options: McpServerOptions): McpServer {
  const parsed = parseConfig(McpServerOptionsSchema, options, 'mcpServer options');
  const server = new McpServer(
    { name: parsed.name, version: parsed.version },
    { capabilities: { tools: {} }, ...(parsed.instructions === undefined ? {} : { instructions: parsed.instructions }) },
  );
  for (const tool of parsed.tools) {
    const inputSchema = tool.inputSchema ?? DEFAULT_INPUT;
    server.registerTool(
      tool.name,
      {
        ...(tool.title === undefined ? {} : { title: tool.title }),
        ...(tool.description === undefined ? {} : { description: tool.description }),
        inputSchema,
      },
      (args: Record<string, unknown>, extra: RequestHandlerExtra<ServerRequest, ServerNotification>) => callAsTool(tool, tool.inputSchema === undefined, args, extra),
    );
  }
  return server;
}
