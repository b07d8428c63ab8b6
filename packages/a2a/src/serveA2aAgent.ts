import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AGENT_CARD_PATH, type AgentCard } from '@a2a-js/sdk';
import { DefaultRequestHandler, InMemoryTaskStore, DefaultExecutionEventBusManager, type User } from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler } from '@a2a-js/sdk/server/express';
import { configRules, parseConfig, type Agent } from '@rxagents/core';
import express from 'express';
import * as z from 'zod';
import { servedTasks } from './internal/servedTasks';

/**
 * Request headers as Node gives them (names in lower case), for {@link ServeA2aAgentOptions}' `caller`.
 *
 * @example
 * ```ts
 * import type { A2aRequestHeaders } from '@rxagents/a2a';
 *
 * const apiKey = (headers: A2aRequestHeaders) => (typeof headers['x-api-key'] === 'string' ? headers['x-api-key'] : undefined);
 * console.log(apiKey({ 'x-api-key': 'k-1' })); // k-1
 * ```
 */
export type A2aRequestHeaders = Readonly<Record<string, string | string[] | undefined>>;

const SkillSchema = z.strictObject({
  id: configRules.nonEmptyString(),
  name: configRules.nonEmptyString(),
  description: z.string(),
  tags: z.array(z.string()).default([]),
  examples: z.array(z.string()).default([]),
});

/**
 * The options of {@link serveA2aAgent}: what the agent card says, where to listen, and who the caller is.
 *
 * @example
 * ```ts
 * import { ServeA2aAgentOptionsSchema } from '@rxagents/a2a';
 *
 * console.log(ServeA2aAgentOptionsSchema.parse({ description: 'Writes haiku' }).host); // 127.0.0.1
 * ```
 */
export const ServeA2aAgentOptionsSchema = z.strictObject({
  /** The card's `name`. Defaults to the agent's `name`, else its `id`. */
  name: configRules.nonEmptyString().optional(),
  /** The card's `description`: what the agent does, for the people and agents choosing it. */
  description: configRules.nonEmptyString(),
  /** The card's `version`. Defaults to `1.0.0`. */
  version: configRules.nonEmptyString().default('1.0.0'),
  /** The card's skills. Defaults to one skill named after the agent with the card's description. */
  skills: z.array(SkillSchema).optional(),
  /** The interface to listen on. Defaults to `127.0.0.1` (loopback: only this machine can call). */
  host: configRules.nonEmptyString().default('127.0.0.1'),
  /** The port. Defaults to `0`: a free port, read it from the server's `url`. */
  port: z.number({ error: 'must be a port (0 to 65535)' }).int('must be a port (0 to 65535)').min(0, 'must be a port (0 to 65535)').max(65_535, 'must be a port (0 to 65535)').default(0),
  /**
   * Who is calling, from the request's headers: tasks are scoped to it (a task is visible to, answerable and
   * cancelable by its creator only). Defaults to the bearer token of the `Authorization` header; callers without one
   * share one anonymous scope, where only the task ids (random UUIDs) keep tasks apart.
   */
  caller: z.custom<(headers: A2aRequestHeaders) => string | undefined>((value) => typeof value === 'function', { error: 'must be a function (headers) => string | undefined' }).optional(),
});

/**
 * The options of {@link serveA2aAgent}; see {@link ServeA2aAgentOptionsSchema}.
 *
 * @example
 * ```ts
 * import type { ServeA2aAgentOptions } from '@rxagents/a2a';
 *
 * const options: ServeA2aAgentOptions = { description: 'Plans trips', port: 4000, caller: (headers) => headers['x-user-id']?.toString() };
 * console.log(options.port); // 4000
 * ```
 */
export type ServeA2aAgentOptions = z.input<typeof ServeA2aAgentOptionsSchema>;

/**
 * A served agent: its address and card, and `close()`.
 *
 * @example
 * ```ts
 * import { defineAgent } from '@rxagents/core';
 * import { serveA2aAgent, type A2aAgentServer } from '@rxagents/a2a';
 *
 * const server: A2aAgentServer = await serveA2aAgent(defineAgent('echo', async (input: string) => input), { description: 'Echoes' });
 * console.log(server.cardUrl.endsWith('/.well-known/agent-card.json')); // true
 * await server.close();
 * ```
 */
export interface A2aAgentServer {
  /** The base URL (JSON-RPC endpoint), for example `http://127.0.0.1:41234/`. */
  readonly url: string;
  /** Where the agent card is served: `<url>.well-known/agent-card.json`. */
  readonly cardUrl: string;
  /** The agent card. */
  readonly card: AgentCard;
  /** Cancels every running task (aborting its agents), stops listening and closes open connections. */
  close(): Promise<void>;
}

/**
 * Serves one of our agents as an A2A agent over HTTP (JSON-RPC and Server-Sent Events), on loopback by default.
 *
 * @remarks
 * The server is the A2A SDK's own (`DefaultRequestHandler`, its JSON-RPC transport on Express, an in-memory task
 * store), with {@link a2aExecutor} running the agent: the agent card at `/.well-known/agent-card.json`,
 * `SendMessage` and `SendStreamingMessage`, `GetTask`, `CancelTask` and `SubscribeToTask` (A2A 1.0 names; the 0.3
 * names `message/send`, `message/stream`, `tasks/cancel`, `tasks/resubscribe` are not served). The SDK validates
 * every request and answers malformed ones with JSON-RPC errors (`-32700` parse error, `-32600` invalid request,
 * `-32601` method not found, `-32602` invalid params, `-32001` task not found). Task ids are random UUIDs and belong
 * to the caller that created them (see `caller`): another caller's `GetTask`, `CancelTask`, `SubscribeToTask` or
 * message on it gets `-32001`, as an unknown task would.
 *
 * @example
 * ```ts
 * import { ClientFactory } from '@a2a-js/sdk/client';
 * import { Role } from '@a2a-js/sdk';
 * import { defineAgent } from '@rxagents/core';
 * import { serveA2aAgent } from '@rxagents/a2a';
 *
 * const server = await serveA2aAgent(defineAgent('echo', async (input: string) => `You said: ${input}`), { description: 'Echoes' });
 * const client = await new ClientFactory().createFromUrl(server.url);
 * const message = { messageId: '1', contextId: '', taskId: '', role: Role.ROLE_USER, parts: [{ content: { $case: 'text' as const, value: 'hi' }, metadata: {}, filename: '', mediaType: 'text/plain' }], metadata: {}, extensions: [], referenceTaskIds: [] };
 * const task = await client.sendMessage({ tenant: '', message, configuration: undefined, metadata: {} });
 * console.log('status' in task ? task.artifacts[0]?.parts.map((part) => part.content?.value).join('') : ''); // You said: hi
 * await server.close();
 * ```
 */
export async function serveA2aAgent(agent: Agent, options: ServeA2aAgentOptions): Promise<A2aAgentServer> {
  const settings = parseConfig(ServeA2aAgentOptionsSchema, options, 'serveA2aAgent options');
  const { executor, cancelAll } = servedTasks(agent);
  const callerOf = settings.caller ?? bearerToken;
  const server = createServer();
  await listen(server, settings.port, settings.host);
  const { port } = server.address() as AddressInfo;
  const url = `http://${settings.host.includes(':') ? `[${settings.host}]` : settings.host}:${port}/`;
  const name = settings.name ?? agent.name ?? agent.id;
  const card: AgentCard = {
    name,
    description: settings.description,
    version: settings.version,
    supportedInterfaces: [{ url, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' }],
    provider: undefined,
    capabilities: { streaming: true, pushNotifications: false, extensions: [] },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: (settings.skills ?? [{ id: agent.id, name, description: settings.description, tags: [], examples: [] }]).map((skill) => ({ ...skill, inputModes: [], outputModes: [], securityRequirements: [] })),
    signatures: [],
  };
  const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), executor, new DefaultExecutionEventBusManager());
  const app = express();
  app.disable('x-powered-by');
  app.use(`/${AGENT_CARD_PATH}`, agentCardHandler({ agentCardProvider: handler }));
  app.use('/', jsonRpcHandler({ requestHandler: handler, userBuilder: async (request) => userOf(callerOf(request.headers)) }));
  server.on('request', app);
  return {
    url,
    cardUrl: `${url}${AGENT_CARD_PATH}`,
    card,
    close: () =>
      new Promise<void>((resolve) => {
        cancelAll();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function bearerToken(headers: A2aRequestHeaders): string | undefined {
  const value = headers['authorization'];
  const header = Array.isArray(value) ? value[0] : value;
  const match = header === undefined ? null : /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

// The caller's scope is a digest of what identifies it, so a token is never kept as a key.
function userOf(caller: string | undefined): User {
  if (caller === undefined || caller === '') return { isAuthenticated: false, userName: '' };
  const userName = createHash('sha256').update(caller).digest('hex');
  return { isAuthenticated: true, userName };
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}
