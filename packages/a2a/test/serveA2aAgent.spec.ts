import { TaskState } from '@a2a-js/sdk';
import { ClientFactory } from '@a2a-js/sdk/client';
import { defineAgent } from '@rxagents/core';
import { Observable } from 'rxjs';
import { serveA2aAgent, type A2aAgentServer } from '../src';
import { readAll, request, stateOf, textOf, userMessage } from './support/a2a';

describe('serveA2aAgent, called by the A2A SDK client', () => {
  let server: A2aAgentServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('streams the reply as artifact updates between working and completed', async () => {
    const writer = defineAgent('writer', () => new Observable<string>((subscriber) => {
      for (const chunk of ['Once ', 'upon ', 'a time.']) subscriber.next(chunk);
      subscriber.complete();
    }));
    server = await serveA2aAgent(writer, { description: 'Writes stories' });
    const client = await new ClientFactory().createFromUrl(server.url);
    const { responses, text } = await readAll(client.sendMessageStream(request(userMessage('Tell a story'))));
    expect(text).toBe('Once upon a time.');
    const states = responses.map(stateOf).filter((state) => state !== undefined);
    expect(states[0]).toBe(TaskState.TASK_STATE_SUBMITTED);
    expect(states).toContain(TaskState.TASK_STATE_WORKING);
    expect(states.at(-1)).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it('answers SendMessage with the completed task and its reply', async () => {
    server = await serveA2aAgent(defineAgent('echo', async (input: string) => `You said: ${input}`), { description: 'Echoes' });
    const client = await new ClientFactory().createFromUrl(server.url);
    const result = await client.sendMessage(request(userMessage('hi')));
    expect('status' in result && result.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect('artifacts' in result && textOf(result.artifacts[0]?.parts)).toBe('You said: hi');
  });
});
