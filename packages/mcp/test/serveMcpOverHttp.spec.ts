import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { defineAgent } from '@rxagents/core';
import { serveMcpOverHttp, type McpHttpServer } from '@rxagents/mcp';
import { z } from 'zod';
import { hangingAgent, until } from './support/agents';

const teller = defineAgent('teller', async function* () {
  yield* ['Once ', 'upon ', 'a time.'];
});

describe('serveMcpOverHttp, called by the MCP SDK client over Streamable HTTP on loopback', () => {
  let served: McpHttpServer | undefined;
  const clients: Client[] = [];
  afterEach(async () => {
    for (const client of clients.splice(0)) await client.close();
    await served?.close();
    served = undefined;
  });

  async function connect(url: string): Promise<Client> {
    const client = new Client({ name: 'test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    clients.push(client);
    return client;
  }

  it('listens on 127.0.0.1 at /mcp; lists and calls the tools, with progress, in a session of its own', async () => {
    served = await serveMcpOverHttp({ name: 'team', version: '1.0.0', tools: [{ name: 'tell', agent: teller }] });
    expect(served.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const client = await connect(served.url);
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['tell']);
    const messages: string[] = [];
    const result = await client.callTool({ name: 'tell', arguments: { input: 'go' } }, undefined, { onprogress: ({ message }) => messages.push(message ?? '') });
    expect(messages).toEqual(['Once ', 'upon ', 'a time.']);
    expect(result.content).toEqual([{ type: 'text', text: 'Once upon a time.' }]);
    expect(served.sessions).toBe(1);
  });

  it('a client aborting the call aborts the run', async () => {
    const hanging = hangingAgent('slow', ['thinking']);
    served = await serveMcpOverHttp({ name: 'team', version: '1.0.0', tools: [{ name: 'slow', agent: hanging.agent }] });
    const client = await connect(served.url);
    const controller = new AbortController();
    let seen = 0;
    const call = client.callTool({ name: 'slow', arguments: { input: 'go' } }, undefined, { signal: controller.signal, onprogress: () => seen++ });
    await until(() => seen === 1, 'the first progress notification');
    controller.abort(new Error('stop'));
    await expect(call).rejects.toThrow('stop');
    await until(hanging.aborted, 'the agent aborted');
    expect(hanging.aborted()).toBe(true);
  });

  it("refuses a bad argument with the tool's schema", async () => {
    served = await serveMcpOverHttp({ name: 'team', version: '1.0.0', tools: [{ name: 'add', inputSchema: z.object({ a: z.number() }), agent: defineAgent('adder', async (input) => input) }] });
    const client = await connect(served.url);
    const result = await client.callTool({ name: 'add', arguments: { a: 'one' } });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toMatch(/Input validation error/);
  });

  it('answers malformed protocol input with its JSON-RPC error codes', async () => {
    served = await serveMcpOverHttp({ name: 'team', version: '1.0.0', tools: [{ name: 'tell', agent: teller }] });
    const post = (body: string, headers: Record<string, string> = {}) =>
      fetch(served!.url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers }, body });
    const parse = await post('{ not json');
    expect([parse.status, ((await parse.json()) as { error: { code: number } }).error.code]).toEqual([400, -32700]);
    const noSession = await post(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }));
    expect([noSession.status, ((await noSession.json()) as { error: { code: number } }).error.code]).toEqual([400, -32000]);
    const unknown = await post(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }), { 'mcp-session-id': 'not-a-session' });
    expect([unknown.status, ((await unknown.json()) as { error: { code: number } }).error.code]).toEqual([404, -32001]);

    const client = await connect(served.url);
    await expect(client.request({ method: 'prompts/list' }, z.object({}).passthrough())).rejects.toMatchObject({ code: -32601 });
  });

  it('refuses a Host header that is not loopback (DNS rebinding) and more sessions than maxSessions', async () => {
    served = await serveMcpOverHttp({ name: 'team', version: '1.0.0', tools: [{ name: 'tell', agent: teller }], maxSessions: 1 });
    await connect(served.url);
    const initialize = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } });
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const second = await fetch(served.url, { method: 'POST', headers, body: initialize });
    expect(second.status).toBe(503);
    await second.body?.cancel();
    const { request } = await import('node:http');
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const req = request(served!.url, { method: 'POST', headers: { ...headers, host: 'evil.example:80' } }, (res) => {
        res.resume();
        resolve(res.statusCode);
      });
      req.on('error', reject);
      req.end(initialize);
    });
    expect(status).toBe(403);
  });
});
