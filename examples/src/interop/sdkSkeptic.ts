import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AGENT_CARD_PATH, TaskState, type AgentCard, type Part } from '@a2a-js/sdk';
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore, type AgentExecutor } from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import express from 'express';

/** The skeptic's lines, one per round (its first message names the round: "Round 1", "Round 2", ...). */
const lines = ['Friday deploys break on the weekend: who is on call?', 'If the pipeline and the rollback are tested, Friday is fine.'];

const text = (value: string): Part => ({ content: { $case: 'text', value }, metadata: {}, filename: '', mediaType: 'text/plain' });
const textOf = (parts: readonly Part[]): string => parts.map((part) => (part.content?.$case === 'text' ? part.content.value : '')).join('');

/**
 * A debater written against the A2A SDK alone, not against rxagents: an `AgentExecutor` that streams its
 * answer word by word as artifact updates, served by the SDK's own request handler and Express transport
 * on loopback. Any A2A agent (Google's ADK, Mastra, ...) would do the same.
 */
const skeptic: AgentExecutor = {
  async execute(context, bus) {
    const round = Number(/Round (\d+)/.exec(textOf(context.userMessage.parts))?.[1] ?? '1');
    const line = lines[Math.min(round, lines.length) - 1] as string;
    const status = (state: TaskState) => ({ state, message: undefined, timestamp: new Date().toISOString() });
    bus.publish(AgentEvent.task({ id: context.taskId, contextId: context.contextId, artifacts: [], history: [context.userMessage], metadata: {}, status: status(TaskState.TASK_STATE_WORKING) }));
    const words = line.split(/(?<= )/);
    for (const [index, word] of words.entries()) {
      bus.publish(
        AgentEvent.artifactUpdate({
          taskId: context.taskId,
          contextId: context.contextId,
          artifact: { artifactId: 'reply', name: 'reply', description: '', parts: [text(word)], metadata: {}, extensions: [] },
          append: index > 0,
          lastChunk: index === words.length - 1,
          metadata: {},
        }),
      );
    }
    bus.publish(AgentEvent.statusUpdate({ taskId: context.taskId, contextId: context.contextId, status: status(TaskState.TASK_STATE_COMPLETED), metadata: {} }));
  },
  async cancelTask() {},
};

/** The skeptic served by the A2A SDK on loopback: its URL and how to stop it. */
export async function serveSdkSkeptic(): Promise<{ readonly url: string; close(): Promise<void> }> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  const card: AgentCard = {
    name: 'skeptic',
    description: 'A debater that doubts, written against the A2A SDK',
    version: '1.0.0',
    supportedInterfaces: [{ url, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' }],
    provider: undefined,
    capabilities: { streaming: true, extensions: [] },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [],
    signatures: [],
  };
  const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), skeptic);
  const app = express();
  app.use(`/${AGENT_CARD_PATH}`, agentCardHandler({ agentCardProvider: handler }));
  app.use('/', jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  server.on('request', app);
  return {
    url,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

