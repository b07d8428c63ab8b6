import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AGENT_CARD_PATH, Role, TaskState, type AgentCard, type StreamResponse } from '@a2a-js/sdk';
import { ClientFactory } from '@a2a-js/sdk/client';
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore, type AgentExecutor } from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import { serveA2aAgent } from '@rxagents/a2a';
import { defineAgent } from '@rxagents/core';
import express from 'express';
import { from } from 'rxjs';
import type { BenchFigure, BenchSuite } from '../BenchSuite';
import { median } from '../median';

const DELTAS = 10_000;
// The SDK's in-memory task store saves the whole task on every artifact update, so a task's stream costs time
// quadratic in its updates on both servers (about 2.5 minutes for 10,000 on a shared 2-core machine): one warm-up
// at a tenth of the size, then one timing each.
const TIMINGS = 1;
const WARM_UP_DELTAS = 1_000;
const tokens = (count: number) => Array.from({ length: count }, (_, index) => `token${index} `);
let deltas = tokens(WARM_UP_DELTAS);
const textPart = (value: string) => ({ content: { $case: 'text' as const, value }, metadata: {}, filename: '', mediaType: 'text/plain' });

/** The SDK's own server with an agent written against the SDK, as its sample agent is: the same deltas as artifact updates. */
async function sdkServer(): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  const card: AgentCard = {
    name: 'sdk-writer', description: 'Streams text', version: '1.0.0', supportedInterfaces: [{ url, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' }],
    provider: undefined, capabilities: { streaming: true, extensions: [] }, securitySchemes: {}, securityRequirements: [],
    defaultInputModes: ['text/plain'], defaultOutputModes: ['text/plain'], skills: [], signatures: [],
  };
  const executor: AgentExecutor = {
    async execute(context, bus) {
      const { taskId, contextId } = context;
      bus.publish(AgentEvent.task({ id: taskId, contextId, status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: undefined }, artifacts: [], history: [context.userMessage], metadata: {} }));
      bus.publish(AgentEvent.statusUpdate({ taskId, contextId, status: { state: TaskState.TASK_STATE_WORKING, message: undefined, timestamp: undefined }, metadata: {} }));
      deltas.forEach((delta, index) =>
        bus.publish(AgentEvent.artifactUpdate({ taskId, contextId, artifact: { artifactId: 'reply', name: 'reply', description: '', parts: [textPart(delta)], metadata: {}, extensions: [] }, append: true, lastChunk: index === DELTAS - 1, metadata: {} })),
      );
      bus.publish(AgentEvent.statusUpdate({ taskId, contextId, status: { state: TaskState.TASK_STATE_COMPLETED, message: undefined, timestamp: undefined }, metadata: {} }));
    },
    async cancelTask() {},
  };
  const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), executor);
  const app = express();
  app.use(`/${AGENT_CARD_PATH}`, agentCardHandler({ agentCardProvider: handler }));
  app.use('/', jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  server.on('request', app);
  return { url, close: () => new Promise<void>((resolve) => { server.close(() => resolve()); server.closeAllConnections(); }) };
}

/** Streams one task with the SDK's client and returns the text it read. */
async function readTask(url: string): Promise<string> {
  const client = await new ClientFactory().createFromUrl(url);
  const message = { messageId: crypto.randomUUID(), contextId: '', taskId: '', role: Role.ROLE_USER, parts: [textPart('Write')], metadata: {}, extensions: [], referenceTaskIds: [] };
  let text = '';
  for await (const response of client.sendMessageStream({ tenant: '', message, configuration: undefined, metadata: {} }) as AsyncIterable<StreamResponse>) {
    if (response.payload?.$case === 'artifactUpdate') for (const part of response.payload.value.artifact?.parts ?? []) text += part.content?.$case === 'text' ? part.content.value : '';
  }
  return text;
}

export const suite: BenchSuite = {
  name: 'interop',
  async run(log) {
    const ours = await serveA2aAgent(defineAgent('writer', () => from(deltas)), { description: 'Streams text' });
    const theirs = await sdkServer();
    try {
      for (const url of [ours.url, theirs.url]) if ((await readTask(url)) !== deltas.join('')) throw new Error(`${url} streamed the wrong text`);
      deltas = tokens(DELTAS);
      const expected = deltas.join('');
      const oursTimes: number[] = [];
      const theirTimes: number[] = [];
      for (let round = 0; round < TIMINGS; round += 1) {
        for (const [url, times] of [[ours.url, oursTimes], [theirs.url, theirTimes]] as const) {
          const start = process.hrtime.bigint();
          const text = await readTask(url);
          times.push(Number(process.hrtime.bigint() - start) / 1e9);
          if (text !== expected) throw new Error(`${url} streamed the wrong text`);
        }
      }
      const [oursS, theirS] = [median(oursTimes), median(theirTimes)];
      log(`${DELTAS.toLocaleString('en')} text deltas to the A2A SDK's client: ${(oursS * 1000).toFixed(0)} ms from serveA2aAgent, ${(theirS * 1000).toFixed(0)} ms from the SDK's own server with an SDK agent`);
      const figures: Record<string, BenchFigure> = {
        a2aStreamOverhead: {
          value: oursS / theirS,
          label: `time of ${DELTAS.toLocaleString('en')} text deltas streamed from serveA2aAgent to the A2A SDK's client / the same deltas from the SDK's own server`,
          bar: { op: '<=', limit: 1.2 },
        },
      };
      return figures;
    } finally {
      await ours.close();
      await theirs.close();
    }
  },
};
