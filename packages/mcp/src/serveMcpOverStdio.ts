import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Readable, Writable } from 'node:stream';
import { mcpServer, type McpServerOptions } from './mcpServer';

/**
 * Serves agents or runnables of ours as MCP tools over stdio: the process an MCP client starts.
 *
 * @remarks
 * Builds the server with {@link mcpServer} and connects it to the MCP SDK's `StdioServerTransport` on
 * `stdin`/`stdout` (default: the process's own), one JSON-RPC message a line. Write logs to stderr, never
 * to stdout: stdout is the protocol. Resolves once the server listens; `close()` on the server it gives
 * stops it. A line that is not JSON-RPC is reported by the transport and dropped (the MCP SDK's behaviour).
 *
 * @throws {@link @rxagents/core!ConfigError | ConfigError} when an option is invalid.
 *
 * @example
 * ```ts
 * // no-run: serves on this process's stdin and stdout until the client closes them
 * import { defineAgent } from '@rxagents/core';
 * import { serveMcpOverStdio } from '@rxagents/mcp';
 *
 * const shouter = defineAgent('shouter', async (input) => input.toUpperCase());
 * await serveMcpOverStdio({ name: 'team', version: '1.0.0', tools: [{ name: 'shout', agent: shouter }] });
 * ```
 */
export async function serveMcpOverStdio(options: McpServerOptions, streams: { readonly stdin?: Readable; readonly stdout?: Writable } = {}): Promise<McpServer> {
  const server = mcpServer(options);
  await server.connect(new StdioServerTransport(streams.stdin, streams.stdout));
  return server;
}
