import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { a2aAgent } from '@rxagents/a2a';
import { serveMcpOverHttp } from '@rxagents/mcp';
import { Patterns } from '@rxagents/patterns';
import { scriptedAgent } from '@rxagents/testing';
import { serveSdkSkeptic } from '../interop/sdkSkeptic';
import type { Scene } from '../Scene';

/**
 * Agents of other frameworks, both ways. The skeptic of a debate is an agent written against the A2A SDK
 * and served by that SDK's own server; the debate calls it over A2A like any agent. The debate is then
 * served as an MCP tool and called by the MCP SDK's own client, which sees every delta of the debate
 * (both debaters') as a progress notification, then the verdict.
 */
export const scene: Scene = {
  name: 'interop',
  title: 'an agent of the A2A SDK debates in our pattern, and the debate is an MCP tool the MCP SDK calls',
  async run() {
    const sdkSkeptic = await serveSdkSkeptic();
    const optimist = scriptedAgent('optimist', (input) => ({
      chunks: /Round 1/.test(input) ? ['Ship ', 'on ', 'Friday: ', 'users ', 'are ', 'waiting.'] : ['Agreed: ', 'tested ', 'rollback, ', 'then ', 'ship.'],
      interval: 5,
    }));
    const skeptic = a2aAgent({ id: 'skeptic', url: sdkSkeptic.url });
    const debate = Patterns.debate({ agents: [optimist, skeptic], maxRounds: 2 });
    const served = await serveMcpOverHttp({
      name: 'release-desk',
      version: '1.0.0',
      tools: [{ name: 'debate', description: 'Debate a release decision between an optimist and a skeptic', events: (args) => debate.events$(String(args['input'])) }],
    });
    const client = new Client({ name: 'interop-demo', version: '1.0.0' });
    try {
      console.log(`A2A: the skeptic is served by the A2A SDK at ${sdkSkeptic.url}`);
      console.log(`MCP: the debate is a tool at ${served.url}`);
      await client.connect(new StreamableHTTPClientTransport(new URL(served.url)));
      const { tools } = await client.listTools();
      console.log(`MCP client lists: ${tools.map((tool) => `${tool.name} (${tool.description ?? ''})`).join(', ')}`);
      let deltas = '';
      const result = await client.callTool({ name: 'debate', arguments: { input: 'Ship the release on Friday?' } }, undefined, {
        onprogress: ({ message }) => {
          deltas += message ?? '';
        },
      });
      console.log(`MCP client heard ${deltas.length} characters of the debate as progress: ${deltas.slice(0, 120)}...`);
      const verdict = (result.content as { type: string; text?: string }[]).map((part) => part.text ?? '').join('');
      console.log(`MCP client's result: ${verdict}`);
      if (result.isError === true) throw new Error(`the debate failed: ${verdict}`);
      if (!/Friday is fine|tested rollback/.test(deltas)) throw new Error('the debate did not reach the skeptic over A2A');
    } finally {
      await client.close();
      await served.close();
      await sdkSkeptic.close();
    }
  },
};
