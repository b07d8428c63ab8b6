import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { defineAgent, observeRun, invoke$, ConfigError, type Agent } from '@rxagents/core';
import { mcpServer, type McpServerOptions } from '@rxagents/mcp';
import { Patterns } from '@rxagents/patterns';
import { z } from 'zod';
import { hangingAgent, until } from './support/agents';

async function connected(options: McpServerOptions): Promise<Client> {
  const server = mcpServer(options);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'test', version: '1.0.0' });
  await client.connect(clientSide);
  return client;
}

const streamer = (id: string, chunks: readonly string[]): Agent => defineAgent(id, async function* () {
  yield* chunks;
});

describe('mcpServer, called by the MCP SDK client', () => {
  let client: Client | undefined;
  afterEach(async () => {
    await client?.close();
    client = undefined;
  });

  it('lists an agent as a tool with the default { input: string } schema and answers with its reply', async () => {
    client = await connected({ name: 'team', version: '1.0.0', tools: [{ name: 'shout', description: 'Shout it', agent: defineAgent('shouter', async (input) => input.toUpperCase()) }] });
    const { tools } = await client.listTools();
    expect(tools).toEqual([expect.objectContaining({ name: 'shout', description: 'Shout it', inputSchema: expect.objectContaining({ type: 'object', properties: { input: expect.objectContaining({ type: 'string' }) }, required: ['input'] }) })]);
    const result = await client.callTool({ name: 'shout', arguments: { input: 'hello' } });
    expect(result).toEqual({ content: [{ type: 'text', text: 'HELLO' }] });
  });

  it('sends every text delta as a progress notification when the client asks for progress', async () => {
    client = await connected({ name: 'team', version: '1.0.0', tools: [{ name: 'tell', agent: streamer('teller', ['Once ', 'upon ', 'a time.']) }] });
    const progress: { progress: number; message?: string }[] = [];
    const result = await client.callTool({ name: 'tell', arguments: { input: 'a story' } }, undefined, { onprogress: ({ progress: count, message }) => progress.push({ progress: count, ...(message === undefined ? {} : { message }) }) });
    expect(progress).toEqual([
      { progress: 1, message: 'Once ' },
      { progress: 2, message: 'upon ' },
      { progress: 3, message: 'a time.' },
    ]);
    expect(result.content).toEqual([{ type: 'text', text: 'Once upon a time.' }]);
  });

  it('cancelling the request aborts the agent of the run', async () => {
    const hanging = hangingAgent('slow', ['thinking']);
    client = await connected({ name: 'team', version: '1.0.0', tools: [{ name: 'slow', agent: hanging.agent }] });
    const controller = new AbortController();
    let seen = 0;
    const call = client.callTool({ name: 'slow', arguments: { input: 'go' } }, undefined, { signal: controller.signal, onprogress: () => seen++ });
    await until(() => seen === 1, 'the first progress notification');
    controller.abort(new Error('user stopped it'));
    await expect(call).rejects.toThrow('user stopped it');
    await until(hanging.aborted, 'the agent aborted');
    expect(hanging.aborted()).toBe(true);
  });

  it("refuses a bad argument with the tool's schema, and runs nothing", async () => {
    const hanging = hangingAgent('never', []);
    client = await connected({ name: 'team', version: '1.0.0', tools: [{ name: 'add', inputSchema: z.object({ a: z.number(), b: z.number() }), agent: hanging.agent }] });
    const result = await client.callTool({ name: 'add', arguments: { a: 1, b: 'two' } });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toMatch(/Input validation error.*b/s);
    expect(hanging.started()).toBe(false);
  });

  it('gives an agent the arguments as JSON text under a schema of its own', async () => {
    client = await connected({ name: 'team', version: '1.0.0', tools: [{ name: 'echo', inputSchema: z.object({ a: z.number() }), agent: defineAgent('echo', async (input) => input) }] });
    expect((await client.callTool({ name: 'echo', arguments: { a: 2 } })).content).toEqual([{ type: 'text', text: '{"a":2}' }]);
  });

  it('serves any runnable through its run events, and a failed run is an error result', async () => {
    const failing = defineAgent('failing', async () => {
      throw new Error('no capacity');
    });
    client = await connected({
      name: 'team',
      version: '1.0.0',
      tools: [
        { name: 'twice', events: (args) => observeRun('twice', String(args['input']), (run) => invoke$(streamer('w', [String(args['input']), String(args['input'])]), 'x', { run })) },
        { name: 'fail', agent: failing },
      ],
    });
    expect((await client.callTool({ name: 'twice', arguments: { input: 'ab' } })).content).toEqual([{ type: 'text', text: 'abab' }]);
    const failed = await client.callTool({ name: 'fail', arguments: { input: 'x' } });
    expect(failed.isError).toBe(true);
    expect(JSON.stringify(failed.content)).toContain('no capacity');
  });

  it('serves a pattern: a debate, every debater\'s deltas as progress, its output the result', async () => {
    const pro = streamer('pro', ['Yes: ', 'faster.']);
    const con = streamer('con', ['No: ', 'riskier.']);
    const debate = Patterns.debate({ agents: [pro, con], maxRounds: 1 });
    client = await connected({ name: 'team', version: '1.0.0', tools: [{ name: 'debate', description: 'Debate a topic', events: (args) => debate.events$(String(args['input'])) }] });
    const messages: string[] = [];
    const result = await client.callTool({ name: 'debate', arguments: { input: 'Adopt the new build tool?' } }, undefined, { onprogress: ({ message }) => messages.push(message ?? '') });
    expect(messages).toEqual(['Yes: ', 'faster.', 'No: ', 'riskier.']);
    expect(result.isError).toBeUndefined();
    expect(JSON.stringify(result.content)).toContain('riskier.');
  });

  it('answers an unknown tool with an error result, and an unknown method with -32601', async () => {
    client = await connected({ name: 'team', version: '1.0.0', tools: [{ name: 'echo', agent: defineAgent('echo', async (input) => input) }] });
    expect((await client.callTool({ name: 'nope', arguments: {} })).isError).toBe(true);
    await expect(client.request({ method: 'prompts/list' }, z.object({}).passthrough())).rejects.toMatchObject({ code: -32601 });
  });

  it('refuses bad options with a ConfigError', () => {
    expect(() => mcpServer({ name: 'team', version: '1.0.0', tools: [] })).toThrow(ConfigError);
    expect(() => mcpServer({ name: 'team', version: '1.0.0', tools: [{ name: 'bad name' } as never] })).toThrow(/name must be 1 to 128/);
    const echo = defineAgent('echo', async (input) => input);
    expect(() => mcpServer({ name: 'team', version: '1.0.0', tools: [{ name: 'a', agent: echo }, { name: 'a', agent: echo }] })).toThrow(/two tools of one name/);
    expect(() => mcpServer({ name: 'team', version: '1.0.0', tools: [{ name: 'a' }] })).toThrow(/exactly one of agent and events/);
  });
});
