import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ToolListChangedNotificationSchema, type Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import { parseConfig } from '@rxagents/core';
import type { ToolSet } from 'ai';
import { Observable, ReplaySubject, startWith, Subject, switchMap, type Subscription } from 'rxjs';
import { z } from 'zod';
import { McpToolListError } from './errors/McpToolListError';
import { toAiSdkTool } from './internal/toAiSdkTool';

/** The most pages of one `tools/list` listing: a server whose cursors never end cannot keep the listing going. */
const MAX_LIST_PAGES = 100;

/**
 * Options of {@link mcpToolSet}.
 *
 * @example
 * ```ts
 * import type { McpToolSetOptions } from '@rxagents/mcp';
 *
 * const options: McpToolSetOptions = { prefix: 'weather_' };
 * ```
 */
export interface McpToolSetOptions {
  /** Put before every tool's name in the ToolSet (the MCP call keeps the server's name), so two servers' tools cannot collide. Default: none. */
  readonly prefix?: string;
}

/**
 * The zod schema of {@link McpToolSetOptions}: strict; `prefix` a string.
 *
 * @example
 * ```ts
 * import { McpToolSetOptionsSchema } from '@rxagents/mcp';
 *
 * console.log(McpToolSetOptionsSchema.safeParse({ prefix: 7 }).success); // false
 * ```
 */
export const McpToolSetOptionsSchema = z.strictObject({
  prefix: z.string({ error: 'must be a string' }).optional(),
});

const ClientRule = z.custom<Client>(
  (value) =>
    typeof value === 'object' &&
    value !== null &&
    ['listTools', 'callTool', 'setNotificationHandler', 'removeNotificationHandler'].every((method) => typeof (value as Record<string, unknown>)[method] === 'function'),
  { error: "must be a connected MCP SDK Client (from '@modelcontextprotocol/sdk/client/index.js')" },
);

/**
 * An MCP server's tools as an AI SDK `ToolSet` that follows the server's list: what {@link mcpToolSet} returns.
 *
 * @example
 * ```ts
 * // no-run: needs a connected MCP client
 * import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
 * import { mcpToolSet, type McpToolSet } from '@rxagents/mcp';
 * import { firstValueFrom } from 'rxjs';
 *
 * declare const client: Client;
 * const mcp: McpToolSet = mcpToolSet(client);
 * console.log(Object.keys(await firstValueFrom(mcp.tools$)));
 * mcp.close();
 * ```
 */
export interface McpToolSet {
  /**
   * The live ToolSet: give it to `aiSdkAgent({ tools })`. Empty until the first listing arrives; its entries
   * are replaced in place each time the server's list changes, so every model step sees the tools of that moment.
   */
  readonly tools: ToolSet;
  /** Each listing's tools (a frozen copy), as they arrive; replays the latest. Completes on `close()`; errors with a {@link McpToolListError}. */
  readonly tools$: Observable<ToolSet>;
  /** Stops following the server's list (its `tools` stay as they are) and gives the client's `list_changed` handler back. */
  close(): void;
}

/**
 * An MCP client's tools as an AI SDK `ToolSet` for `aiSdkAgent`, following `notifications/tools/list_changed`.
 *
 * @remarks
 * Lists the server's tools at once (every page of `tools/list`) and again on every
 * `notifications/tools/list_changed` (a listing still under way is dropped for the newer one). Each MCP tool
 * becomes an AI SDK tool: its JSON Schema is the input schema (`jsonSchema()` from `ai`), its description
 * the tool's. `aiSdkAgent` takes a fixed `tools` object, so the tool set is a live object, `tools`, whose
 * entries change with the server's list; `tools$` gives each listing as a value too.
 *
 * A tool call is `tools/call` on the client:
 * - cancelled when the agent's call is unsubscribed: the AI SDK aborts the tool's `abortSignal`, and the MCP
 *   SDK then sends `notifications/cancelled` for the request;
 * - its progress notifications become `custom` run events named `mcp-progress` (data `{ toolName,
 *   toolCallId, progress, total?, message? }`) under the agent's call, when the agent is called in a run:
 *   `aiSdkAgent` gives every tool the call's run as `experimental_context.run`. Without a run, no progress is asked for;
 * - a tool error (a result with `isError`, or the protocol refusing the call) throws a {@link McpToolError}
 *   with the tool's text as its message: the AI SDK gives the model that as the tool's error result and the
 *   reply goes on;
 * - its result, given to the model: the structured content if any, else the text, else the content items.
 *
 * The MCP SDK's request timeout applies to each call (60 s by default, restarted by every progress
 * notification). The tool set takes the client's `notifications/tools/list_changed` handler while it
 * follows (one handler per method in the MCP SDK) and removes it on `close()`. A failed listing errors
 * `tools$` with a {@link McpToolListError} and stops following; `tools` keep the last good list.
 *
 * @throws {@link @rxagents/core!ConfigError | ConfigError} when `client` is not an MCP SDK client or an option is invalid.
 *
 * @example
 * ```ts
 * import { Client } from '@modelcontextprotocol/sdk/client/index.js';
 * import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
 * import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
 * import { mcpToolSet } from '@rxagents/mcp';
 * import { firstValueFrom } from 'rxjs';
 * import { z } from 'zod';
 *
 * const server = new McpServer({ name: 'weather', version: '1.0.0' });
 * server.registerTool('forecast', { description: 'The forecast for a city', inputSchema: { city: z.string() } }, async ({ city }) => ({
 *   content: [{ type: 'text', text: `Sunny in ${city}` }],
 * }));
 * const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
 * await server.connect(serverSide);
 * const client = new Client({ name: 'app', version: '1.0.0' });
 * await client.connect(clientSide);
 *
 * const mcp = mcpToolSet(client);
 * await firstValueFrom(mcp.tools$);
 * console.log(Object.keys(mcp.tools)); // [ 'forecast' ]
 * // aiSdkAgent({ id: 'assistant', model, tools: mcp.tools })
 * mcp.close();
 * await client.close();
 * ```
 */
export function mcpToolSet(client: Client, options: McpToolSetOptions = {}): McpToolSet {
  parseConfig(ClientRule, client, 'mcpToolSet client');
  const { prefix = '' } = parseConfig(McpToolSetOptionsSchema, options, 'mcpToolSet options');
  const tools: ToolSet = Object.create(null) as ToolSet;
  const listings = new ReplaySubject<ToolSet>(1);
  const changed = new Subject<void>();
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => changed.next());
  let closed = false;

  const subscription: Subscription = changed
    .pipe(
      startWith(undefined),
      switchMap(() => listTools(client)),
    )
    .subscribe({
      next: (list) => {
        const next = new Map(list.map((tool) => [prefix + tool.name, toAiSdkTool(client, tool)]));
        for (const name of Object.keys(tools)) if (!next.has(name)) delete tools[name];
        for (const [name, tool] of next) tools[name] = tool;
        listings.next(Object.freeze(Object.assign(Object.create(null) as ToolSet, tools)));
      },
      error: (error: unknown) => {
        client.removeNotificationHandler('notifications/tools/list_changed');
        listings.error(new McpToolListError(error));
      },
    });

  return Object.freeze({
    tools,
    tools$: listings.asObservable(),
    close: () => {
      if (closed) return;
      closed = true;
      subscription.unsubscribe();
      client.removeNotificationHandler('notifications/tools/list_changed');
      listings.complete();
    },
  });
}

/** Every page of `tools/list`; unsubscribing aborts the request under way. */
function listTools(client: Client): Observable<McpTool[]> {
  return new Observable<McpTool[]>((subscriber) => {
    const controller = new AbortController();
    const all: McpTool[] = [];
    const page = async (): Promise<void> => {
      let cursor: string | undefined;
      for (let pages = 0; pages < MAX_LIST_PAGES; pages++) {
        const result = await client.listTools(cursor === undefined ? {} : { cursor }, { signal: controller.signal });
        all.push(...result.tools);
        cursor = result.nextCursor;
        if (cursor === undefined) return;
      }
    };
    page().then(
      () => {
        subscriber.next(all);
        subscriber.complete();
      },
      (error: unknown) => subscriber.error(error),
    );
    return () => controller.abort();
  });
}
