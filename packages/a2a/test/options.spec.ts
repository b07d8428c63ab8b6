import { ConfigError, defineAgent } from '@rxagents/core';
import { ClientFactory } from '@a2a-js/sdk/client';
import { TaskState } from '@a2a-js/sdk';
import { Observable } from 'rxjs';
import { a2aAgent, A2aAgentOptionsSchema, serveA2aAgent, ServeA2aAgentOptionsSchema } from '../src';
import { request, userMessage, waitFor } from './support/a2a';

describe('a2a options', () => {
  it('a2aAgent refuses options that name no remote agent, or two', () => {
    expect(() => a2aAgent({ id: 'x' })).toThrow(/exactly one of url and client/);
    const client = { sendMessageStream: () => undefined, cancelTask: () => undefined } as never;
    expect(() => a2aAgent({ id: 'x', url: 'http://127.0.0.1:1', client })).toThrow(/exactly one of url and client/);
    expect(a2aAgent({ id: 'x', client }).id).toBe('x');
    expect(() => a2aAgent({ id: 'x', url: 'not a url' })).toThrow(/url must be a URL/);
    expect(A2aAgentOptionsSchema.safeParse({ id: 'x', url: 'http://127.0.0.1:1', maxResubscribes: -1 }).success).toBe(false);
    expect(() => a2aAgent({ id: 'x', url: 'http://127.0.0.1:1', unknown: true } as never)).toThrow(ConfigError);
  });

  it('serveA2aAgent listens on loopback by default and refuses bad options', async () => {
    expect(ServeA2aAgentOptionsSchema.parse({ description: 'd' })).toMatchObject({ host: '127.0.0.1', port: 0, version: '1.0.0' });
    await expect(serveA2aAgent(defineAgent('a', async () => ''), { description: '' })).rejects.toThrow(ConfigError);
    await expect(serveA2aAgent(defineAgent('a', async () => ''), { description: 'd', port: 70_000 })).rejects.toThrow(/port must be a port/);
    const server = await serveA2aAgent(defineAgent('a', async () => ''), { description: 'd' });
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    expect(server.card).toMatchObject({ name: 'a', description: 'd', capabilities: { streaming: true } });
    await server.close();
  });

  it('close() cancels running tasks, aborting their agents', async () => {
    const aborted: string[] = [];
    const server = await serveA2aAgent(
      defineAgent('slow', (_input: string, { signal }) => new Observable<string>((subscriber) => {
        subscriber.next('...');
        signal.addEventListener('abort', () => aborted.push('slow'));
      })),
      { description: 'Slow' },
    );
    const client = await new ClientFactory().createFromUrl(server.url);
    const stream = client.sendMessageStream(request(userMessage('Go')));
    const first = await stream.next();
    expect(first.value?.payload?.$case === 'task' && first.value.payload.value.status?.state).toBe(TaskState.TASK_STATE_SUBMITTED);
    await server.close();
    await waitFor(() => aborted.length === 1);
    expect(aborted).toEqual(['slow']);
    await stream.return(undefined);
  });
});
