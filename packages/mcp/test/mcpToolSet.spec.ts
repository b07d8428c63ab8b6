import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { ConfigError, invoke$, observeRun, type RunEvent } from '@rxagents/core';
import { aiSdkAgent } from '@rxagents/ai-sdk';
import { mcpToolSet, McpToolError, McpToolListError, type McpToolSet } from '@rxagents/mcp';
import { firstValueFrom, lastValueFrom, skip, toArray, type Observable } from 'rxjs';
import { z } from 'zod';
import { until } from './support/agents';
import { callingModel } from './support/models';

/** The MCP SDK's own server, with a `forecast` tool, connected in memory to the MCP SDK's own client. */
async function weatherServer(): Promise<{ server: McpServer; client: Client }> {
  const server = new McpServer({ name: 'weather', version: '1.0.0' });
  server.registerTool('forecast', { description: 'The forecast for a city', inputSchema: { city: z.string() } }, async ({ city }, extra) => {
    const progressToken = extra._meta?.progressToken;
    if (progressToken !== undefined) {
      await extra.sendNotification({ method: 'notifications/progress', params: { progressToken, progress: 1, total: 2, message: 'asking the satellites' } });
      await extra.sendNotification({ method: 'notifications/progress', params: { progressToken, progress: 2, total: 2 } });
    }
    return { content: [{ type: 'text', text: `Sunny in ${city}` }] };
  });
  return { server, client: await connectInMemory(server) };
}

/** The MCP SDK's own client, connected in memory to `server`. */
async function connectInMemory(server: McpServer | Server): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'test', version: '1.0.0' });
  await client.connect(clientSide);
  return client;
}

function collect(events$: Observable<RunEvent>): { events: RunEvent[]; done: Promise<void>; stop: () => void } {
  const events: RunEvent[] = [];
  let stop = (): void => undefined;
  const done = new Promise<void>((resolve, reject) => {
    const subscription = events$.subscribe({ next: (event) => events.push(event), error: reject, complete: resolve });
    stop = () => subscription.unsubscribe();
  });
  return { events, done, stop };
}

const runEnd = (events: readonly RunEvent[]) => events.find((event) => event.type === 'run-end' && event.parentCallId === null);

describe('mcpToolSet, against the MCP SDK server', () => {
  let client: Client | undefined;
  let mcp: McpToolSet | undefined;
  afterEach(async () => {
    mcp?.close();
    await client?.close();
    mcp = client = undefined;
  });

  it("gives the server's tools as a ToolSet that an aiSdkAgent calls; progress becomes custom events under the agent call", async () => {
    ({ client } = await weatherServer());
    mcp = mcpToolSet(client);
    const listed = await firstValueFrom(mcp.tools$);
    expect(Object.keys(listed)).toEqual(['forecast']);
    expect(listed['forecast']).toMatchObject({ description: 'The forecast for a city' });

    const model = callingModel('forecast', { city: 'Oslo' });
    const agent = aiSdkAgent({ id: 'assistant', model, tools: mcp.tools });
    const run = collect(observeRun('weather', 'Oslo?', (run) => invoke$(agent, 'Oslo?', { run })));
    await run.done;

    expect(runEnd(run.events)).toMatchObject({ success: true, output: '"Sunny in Oslo"' });
    const call = run.events.find((event) => event.type === 'call-start');
    const progress = run.events.filter((event) => event.type === 'custom' && event.name === 'mcp-progress');
    expect(progress).toEqual([
      expect.objectContaining({ name: 'mcp-progress', callId: call?.callId, data: { toolName: 'forecast', toolCallId: 'call-1', progress: 1, total: 2, message: 'asking the satellites' } }),
      expect.objectContaining({ name: 'mcp-progress', callId: call?.callId, data: { toolName: 'forecast', toolCallId: 'call-1', progress: 2, total: 2 } }),
    ]);
  });

  it('follows notifications/tools/list_changed: tools added and removed on the server change the live ToolSet', async () => {
    let server: McpServer;
    ({ server, client } = await weatherServer());
    mcp = mcpToolSet(client, { prefix: 'weather_' });
    const listings = lastValueFrom(mcp.tools$.pipe(toArray()));
    await firstValueFrom(mcp.tools$);
    expect(Object.keys(mcp.tools)).toEqual(['weather_forecast']);

    const next = firstValueFrom(mcp.tools$.pipe(skip(1)));
    const alerts = server.registerTool('alerts', { description: 'Storm alerts', inputSchema: { region: z.string() } }, async () => ({ content: [{ type: 'text', text: 'none' }] }));
    expect(Object.keys(await next).sort()).toEqual(['weather_alerts', 'weather_forecast']);
    expect(Object.keys(mcp.tools).sort()).toEqual(['weather_alerts', 'weather_forecast']);

    const after = firstValueFrom(mcp.tools$.pipe(skip(1)));
    alerts.remove();
    expect(Object.keys(await after)).toEqual(['weather_forecast']);
    expect(Object.keys(mcp.tools)).toEqual(['weather_forecast']);

    mcp.close();
    expect((await listings).map((tools) => Object.keys(tools).length)).toEqual([1, 2, 1]);
  });

  it("unsubscribing the agent's call cancels the tool call on the server (notifications/cancelled)", async () => {
    const server = new McpServer({ name: 'slow', version: '1.0.0' });
    let started = false;
    let cancelled = false;
    server.registerTool('crawl', { inputSchema: { url: z.string() } }, (_args, extra) => {
      started = true;
      return new Promise((_resolve, reject) => {
        extra.signal.addEventListener('abort', () => {
          cancelled = true;
          reject(new Error('cancelled'));
        });
      });
    });
    client = await connectInMemory(server);
    mcp = mcpToolSet(client);
    await firstValueFrom(mcp.tools$);

    const agent = aiSdkAgent({ id: 'crawler', model: callingModel('crawl', { url: 'https://rxjs.dev' }), tools: mcp.tools });
    const run = collect(observeRun('crawl', 'go', (run) => invoke$(agent, 'go', { run })));
    await until(() => started, 'the tool call to reach the server');
    run.stop();
    await until(() => cancelled, 'the server to see the cancellation');
    expect(cancelled).toBe(true);
  });

  it("gives the model a tool's error as the tool's error result, and the reply goes on", async () => {
    const server = new McpServer({ name: 'flaky', version: '1.0.0' });
    server.registerTool('lookup', { inputSchema: { city: z.string() } }, async ({ city }) => ({ isError: true, content: [{ type: 'text', text: `No such city: ${city}` }] }));
    server.registerTool('explode', { inputSchema: { city: z.string() } }, async () => {
      throw new Error('database down');
    });
    client = await connectInMemory(server);
    mcp = mcpToolSet(client);
    await firstValueFrom(mcp.tools$);

    const lookup = aiSdkAgent({ id: 'a', model: callingModel('lookup', { city: 'Atlantis' }), tools: mcp.tools });
    expect(await lastValueFrom(invoke$(lookup, 'Atlantis?'))).toBe('error: No such city: Atlantis');
    const explode = aiSdkAgent({ id: 'b', model: callingModel('explode', { city: 'Oslo' }), tools: mcp.tools });
    expect(await lastValueFrom(invoke$(explode, 'Oslo?'))).toBe('error: database down');
  });

  it('a JSON-RPC error for the call is an McpToolError with its protocol code, given to the model as the error result', async () => {
    const server = new Server({ name: 'strict', version: '1.0.0' }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [{ name: 'lookup', inputSchema: { type: 'object', properties: { city: { type: 'string' } } } }] }));
    server.setRequestHandler(CallToolRequestSchema, async () => {
      throw new McpError(ErrorCode.InvalidParams, 'city unknown');
    });
    client = await connectInMemory(server);
    mcp = mcpToolSet(client);
    const lookup = (await firstValueFrom(mcp.tools$))['lookup']!;
    const failure: unknown = await Promise.resolve(lookup.execute!({ city: 'Atlantis' }, { toolCallId: 'c1', messages: [], experimental_context: undefined })).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(McpToolError);
    expect(failure).toMatchObject({ code: 'MCP_TOOL_FAILED', toolName: 'lookup', protocolCode: -32602 });

    const agent = aiSdkAgent({ id: 'a', model: callingModel('lookup', { city: 'Atlantis' }), tools: mcp.tools });
    expect(await lastValueFrom(invoke$(agent, 'Atlantis?'))).toMatch(/^error: .*city unknown/);
  });

  it('errors tools$ with McpToolListError when the listing fails, and refuses what is not a client', async () => {
    ({ client } = await weatherServer());
    await client.close();
    mcp = mcpToolSet(client);
    await expect(firstValueFrom(mcp.tools$)).rejects.toBeInstanceOf(McpToolListError);
    expect(() => mcpToolSet({} as Client)).toThrow(ConfigError);
    expect(() => mcpToolSet(client!, { prefix: 1 } as never)).toThrow(/prefix must be a string/);
  });
});
