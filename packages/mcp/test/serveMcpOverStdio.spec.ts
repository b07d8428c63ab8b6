import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { join } from 'node:path';
import { z } from 'zod';
import { until } from './support/agents';

const root = join(__dirname, '../../..');

describe('serveMcpOverStdio, a child process called by the MCP SDK client', () => {
  let client: Client;
  let stderr = '';

  beforeAll(async () => {
    const transport = new StdioClientTransport({ command: process.execPath, args: ['--import', 'tsx', join(__dirname, 'support/stdioServer.ts')], cwd: root, stderr: 'pipe' });
    transport.stderr?.on('data', (data: Buffer) => (stderr += data.toString()));
    client = new Client({ name: 'test', version: '1.0.0' });
    await client.connect(transport);
  }, 30_000);
  afterAll(async () => {
    await client.close();
  });

  it('lists the tools and calls one', async () => {
    expect(client.getServerVersion()).toMatchObject({ name: 'stdio-team' });
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['tell', 'slow']);
    const result = await client.callTool({ name: 'tell', arguments: { input: 'time' } });
    expect(result.content).toEqual([{ type: 'text', text: 'Once upon a time.' }]);
  });

  // The agent keeps its call open after its deltas: the MCP SDK's client handles a notification a microtask
  // after reading it but a response at once, so progress read in one chunk with the result can be dropped.
  it('sends the deltas as progress; a client aborting the call aborts the agent in the child', async () => {
    const controller = new AbortController();
    const messages: string[] = [];
    const call = client.callTool({ name: 'slow', arguments: { input: 'go' } }, undefined, { signal: controller.signal, onprogress: ({ message }) => messages.push(message ?? '') });
    await until(() => messages.length === 2, 'two progress notifications', 100_000);
    expect(messages).toEqual(['thinking ', 'harder']);
    controller.abort(new Error('stop'));
    await expect(call).rejects.toThrow('stop');
    await until(() => stderr.includes('slow aborted'), 'the child to report the abort', 100_000);
    expect(stderr).toContain('slow aborted');
  });

  it("refuses a bad argument with the tool's schema, and an unknown method with -32601", async () => {
    const result = await client.callTool({ name: 'tell', arguments: { input: 42 } });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toMatch(/Input validation error/);
    await expect(client.request({ method: 'resources/list' }, z.object({}).passthrough())).rejects.toMatchObject({ code: -32601 });
  });
});
