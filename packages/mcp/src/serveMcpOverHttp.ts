import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { configRules, parseConfig } from '@rxagents/core';
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { mcpServer, McpServerOptionsSchema, type McpServerOptions } from './mcpServer';

/** The largest request body read before a session exists, in bytes: the MCP SDK's own limit. */
const MAX_BODY_BYTES = 4 * 1024 * 1024;
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1']);

/**
 * Options of {@link serveMcpOverHttp}: the server's ({@link McpServerOptions}) and where it listens.
 *
 * @example
 * ```ts
 * import { defineAgent } from '@rxagents/core';
 * import type { McpHttpServerOptions } from '@rxagents/mcp';
 *
 * const echo = defineAgent('echo', async (input) => input);
 * const options: McpHttpServerOptions = { name: 'team', version: '1.0.0', tools: [{ name: 'echo', agent: echo }], port: 3001 };
 * ```
 */
export interface McpHttpServerOptions extends McpServerOptions {
  /** The TCP port. Default 0: any free port (read it from `url`). */
  readonly port?: number;
  /** The interface to listen on. Default `127.0.0.1` (loopback: only this machine can connect). */
  readonly host?: string;
  /** The endpoint's path. Default `/mcp`. */
  readonly path?: string;
  /** The most sessions open at once; an initialize past it is refused with HTTP 503. Default 100. */
  readonly maxSessions?: number;
}

/**
 * The zod schema of {@link McpHttpServerOptions}: {@link McpServerOptionsSchema} and where to listen.
 *
 * @remarks
 * `port` an integer from 0 to 65535, `host` a non-empty string, `path` starting with `/` (no query),
 * `maxSessions` a positive integer.
 *
 * @example
 * ```ts
 * import { defineAgent } from '@rxagents/core';
 * import { McpHttpServerOptionsSchema } from '@rxagents/mcp';
 *
 * const echo = defineAgent('echo', async (input) => input);
 * console.log(McpHttpServerOptionsSchema.safeParse({ name: 'team', version: '1', tools: [{ name: 'echo', agent: echo }], port: 70_000 }).success); // false
 * ```
 */
export const McpHttpServerOptionsSchema = McpServerOptionsSchema.extend({
  port: configRules.nonNegativeInt(65535).optional(),
  host: configRules.nonEmptyString().optional(),
  path: z.string({ error: 'must be a path' }).regex(/^\/[^?#]*$/, 'must be a path starting with "/"').optional(),
  maxSessions: configRules.positiveInt().optional(),
});

/**
 * A running Streamable HTTP MCP endpoint: what {@link serveMcpOverHttp} resolves to.
 *
 * @example
 * ```ts
 * // no-run: a type only
 * import type { McpHttpServer } from '@rxagents/mcp';
 *
 * declare const served: McpHttpServer;
 * console.log(served.url); // http://127.0.0.1:43127/mcp
 * await served.close();
 * ```
 */
export interface McpHttpServer {
  /** The endpoint's URL, for a client's `StreamableHTTPClientTransport`. */
  readonly url: string;
  /** The sessions open now. */
  readonly sessions: number;
  /** Closes every session (aborting the runs in progress) and stops listening. */
  close(): Promise<void>;
}

/**
 * Serves agents or runnables of ours as MCP tools over Streamable HTTP, on loopback by default.
 *
 * @remarks
 * A Node `http` server whose one endpoint (`path`, default `/mcp`) speaks the MCP Streamable HTTP transport
 * through the MCP SDK's `StreamableHTTPServerTransport`: a client's `initialize` opens a session (an
 * unguessable `Mcp-Session-Id`, a server of its own made by {@link mcpServer}), its later requests carry
 * the session's id, progress notifications of a call travel on that call's SSE response, and `DELETE`
 * ends the session. Listens on `127.0.0.1` unless `host` says otherwise; on loopback the `Host` header
 * must name loopback too (against DNS rebinding). What is not the protocol is refused with its JSON-RPC
 * error: a body that is not JSON `-32700` (HTTP 400), a request without a session that is no `initialize`
 * `-32000` (HTTP 400), an unknown session `-32001` (HTTP 404); more than `maxSessions` (default 100)
 * sessions at once HTTP 503. No authentication: put it behind your own for anything but loopback.
 *
 * @throws {@link @rxagents/core!ConfigError | ConfigError} when an option is invalid (the Promise rejects).
 *
 * @example
 * ```ts
 * import { Client } from '@modelcontextprotocol/sdk/client/index.js';
 * import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
 * import { defineAgent } from '@rxagents/core';
 * import { serveMcpOverHttp } from '@rxagents/mcp';
 *
 * const shouter = defineAgent('shouter', async (input) => input.toUpperCase());
 * const served = await serveMcpOverHttp({ name: 'team', version: '1.0.0', tools: [{ name: 'shout', agent: shouter }] });
 * const client = new Client({ name: 'app', version: '1.0.0' });
 * await client.connect(new StreamableHTTPClientTransport(new URL(served.url)));
 * console.log((await client.callTool({ name: 'shout', arguments: { input: 'hi' } })).content); // [ { type: 'text', text: 'HI' } ]
 * await client.close();
 * await served.close();
 * ```
 */
export async function serveMcpOverHttp(options: McpHttpServerOptions): Promise<McpHttpServer> {
  const { port = 0, host = '127.0.0.1', path = '/mcp', maxSessions = 100, ...serverOptions } = parseConfig(McpHttpServerOptionsSchema, options, 'serveMcpOverHttp options');
  const sessions = new Map<string, { transport: StreamableHTTPServerTransport; server: McpServer }>();
  let allowedHosts: Set<string> | undefined;

  const open = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (req.method !== 'POST') return reply(res, 400, -32000, 'Bad Request: no valid session id');
    const text = await readBody(req);
    if (text === undefined) return reply(res, 413, -32000, 'Request body too large');
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return reply(res, 400, -32700, 'Parse error');
    }
    if (!isInitializeRequest(body)) return reply(res, 400, -32000, 'Bad Request: no valid session id');
    if (sessions.size >= maxSessions) return reply(res, 503, -32000, 'Too many sessions');
    const server = mcpServer(serverOptions);
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => void sessions.set(id, { transport, server }),
      onsessionclosed: (id) => void sessions.delete(id),
    });
    transport.onclose = () => {
      if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (new URL(req.url ?? '/', 'http://localhost').pathname !== path) return reply(res, 404, -32601, 'Not found');
    if (allowedHosts !== undefined && !allowedHosts.has(req.headers.host ?? '')) return reply(res, 403, -32000, 'Invalid Host header');
    const sessionId = req.headers['mcp-session-id'];
    if (sessionId === undefined) return open(req, res);
    const session = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
    if (session === undefined) return reply(res, 404, -32001, 'Session not found');
    await session.transport.handleRequest(req, res);
  };

  const http = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) reply(res, 500, -32603, 'Internal error');
      else res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(port, host, () => {
      http.off('error', reject);
      resolve();
    });
  });
  const address = http.address() as AddressInfo;
  if (LOOPBACK.has(host)) allowedHosts = new Set([`127.0.0.1:${address.port}`, `localhost:${address.port}`, `[::1]:${address.port}`]);
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;

  return {
    url: `http://${shownHost}:${address.port}${path}`,
    get sessions() {
      return sessions.size;
    },
    close: async () => {
      const open = [...sessions.values()];
      sessions.clear();
      await Promise.all(open.map(({ server }) => server.close()));
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

function reply(res: ServerResponse, status: number, code: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

/** The body as text, or `undefined` past {@link MAX_BODY_BYTES}. */
async function readBody(req: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
