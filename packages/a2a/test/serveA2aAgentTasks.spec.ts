import { TaskState, type StreamResponse } from '@a2a-js/sdk';
import { ClientFactory, type Client } from '@a2a-js/sdk/client';
import { TaskNotFoundError } from '@a2a-js/sdk/errors';
import { askForInput, defineAgent, stream } from '@rxagents/core';
import { merge, Observable, Subject, switchMap } from 'rxjs';
import { serveA2aAgent, type A2aAgentServer } from '../src';
import { readAll, request, stateOf, textOf, userMessage, waitFor } from './support/a2a';

const as = (token: string) => ({ serviceParameters: { authorization: `Bearer ${token}` } });

/** An agent that says `hello <name>` then waits until aborted, recording the abort. */
function hangingAgent(name: string, aborted: string[]) {
  return defineAgent(name, (_input: string, { signal }) => new Observable<string>((subscriber) => {
    subscriber.next(`${name} here. `);
    signal.addEventListener('abort', () => aborted.push(name));
  }));
}

async function firstTask(responses: AsyncGenerator<StreamResponse>): Promise<string> {
  for await (const response of responses) if (response.payload?.$case === 'task') return response.payload.value.id;
  throw new Error('no task');
}

describe('serveA2aAgent tasks, driven by the A2A SDK client', () => {
  let server: A2aAgentServer | undefined;
  let client: Client;
  // The SDK's server logs every refused request on console.error: expected here.
  beforeEach(() => jest.spyOn(console, 'error').mockImplementation(() => undefined));
  afterEach(async () => {
    jest.restoreAllMocks();
    await server?.close();
    server = undefined;
  });

  it('cancels mid-stream: every agent in the run is aborted and the task ends canceled', async () => {
    const aborted: string[] = [];
    const left = hangingAgent('left', aborted);
    const right = hangingAgent('right', aborted);
    const team = defineAgent('team', (input: string, { run }) => merge(stream(left, input, { run }), stream(right, input, { run })));
    server = await serveA2aAgent(team, { description: 'Two agents at once' });
    client = await new ClientFactory().createFromUrl(server.url);
    const responses: StreamResponse[] = [];
    let text = '';
    let taskId = '';
    const reading = (async () => {
      for await (const response of client.sendMessageStream(request(userMessage('Go')))) {
        responses.push(response);
        if (response.payload?.$case === 'task') taskId = response.payload.value.id;
        if (response.payload?.$case === 'artifactUpdate') text += textOf(response.payload.value.artifact?.parts);
      }
    })();
    await waitFor(() => text.includes('left here') && text.includes('right here'));
    const canceled = await client.cancelTask({ tenant: '', id: taskId, metadata: {} });
    await reading;
    expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect(aborted.sort()).toEqual(['left', 'right']);
    expect(responses.map(stateOf).filter((state) => state !== undefined).at(-1)).toBe(TaskState.TASK_STATE_CANCELED);
    expect((await client.getTask({ tenant: '', id: taskId, historyLength: undefined })).status?.state).toBe(TaskState.TASK_STATE_CANCELED);
  });

  it('resubscribes after a dropped connection and reads the rest of the reply', async () => {
    const more = new Subject<string>();
    const writer = defineAgent('writer', () => new Observable<string>((subscriber) => {
      subscriber.next('First part. ');
      const subscription = more.subscribe((chunk) => (chunk === '' ? subscriber.complete() : subscriber.next(chunk)));
      return () => subscription.unsubscribe();
    }));
    server = await serveA2aAgent(writer, { description: 'Writes in parts' });
    client = await new ClientFactory().createFromUrl(server.url);
    const dropped = new AbortController();
    let taskId = '';
    let before = '';
    const first = (async () => {
      try {
        for await (const response of client.sendMessageStream(request(userMessage('Write')), { signal: dropped.signal })) {
          if (response.payload?.$case === 'task') taskId = response.payload.value.id;
          if (response.payload?.$case === 'artifactUpdate') before += textOf(response.payload.value.artifact?.parts);
        }
      } catch {
        // the connection was dropped
      }
    })();
    await waitFor(() => before === 'First part. ');
    dropped.abort();
    await first;
    const resubscribed = client.resubscribeTask({ tenant: '', id: taskId });
    const head = await resubscribed.next();
    expect(head.value?.payload?.$case === 'task' && textOf(head.value.payload.value.artifacts[0]?.parts)).toBe('First part. ');
    more.next('Second part.');
    more.next('');
    const rest = await readAll(resubscribed);
    expect(rest.text).toBe('Second part.');
    expect(rest.responses.map(stateOf).filter((state) => state !== undefined).at(-1)).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it('refuses a task to a caller that did not create it, as an unknown task', async () => {
    const aborted: string[] = [];
    server = await serveA2aAgent(hangingAgent('slow', aborted), { description: 'Takes its time' });
    client = await new ClientFactory().createFromUrl(server.url);
    const taskId = await firstTask(client.sendMessageStream(request(userMessage('Go')), as('alice-token')));
    expect((await client.getTask({ tenant: '', id: taskId, historyLength: undefined }, as('alice-token'))).id).toBe(taskId);
    const notFound = TaskNotFoundError;
    await expect(client.getTask({ tenant: '', id: taskId, historyLength: undefined }, as('mallory-token'))).rejects.toBeInstanceOf(notFound);
    await expect(client.getTask({ tenant: '', id: taskId, historyLength: undefined })).rejects.toBeInstanceOf(notFound);
    await expect(client.cancelTask({ tenant: '', id: taskId, metadata: {} }, as('mallory-token'))).rejects.toBeInstanceOf(notFound);
    await expect(readAll(client.resubscribeTask({ tenant: '', id: taskId }, as('mallory-token')))).rejects.toBeInstanceOf(notFound);
    await expect(readAll(client.sendMessageStream(request(userMessage('Hijack', { taskId })), as('mallory-token')))).rejects.toBeInstanceOf(notFound);
    expect(aborted).toEqual([]);
    expect((await client.cancelTask({ tenant: '', id: taskId, metadata: {} }, as('alice-token'))).status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect(aborted).toEqual(['slow']);
  });

  it('asks for input (input-required) and takes the next message on the task as the answer', async () => {
    const greeter = defineAgent('greeter', (_input: string, { run }) => askForInput(run, 'What is your name?').pipe(switchMap(async (name) => `Hello, ${name}!`)));
    server = await serveA2aAgent(greeter, { description: 'Greets you' });
    client = await new ClientFactory().createFromUrl(server.url);
    const asked = await readAll(client.sendMessageStream(request(userMessage('Greet me'))));
    const last = asked.responses.at(-1);
    expect(last && stateOf(last)).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const status = last?.payload?.$case === 'statusUpdate' ? last.payload.value : undefined;
    expect(textOf(status?.status?.message?.parts)).toBe('What is your name?');
    const answered = await readAll(client.sendMessageStream(request(userMessage('Ada', { taskId: status?.taskId ?? '', contextId: status?.contextId ?? '' }))));
    expect(answered.text).toBe('Hello, Ada!');
    expect(answered.responses.map(stateOf)).not.toContain(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(answered.responses.map(stateOf).filter((state) => state !== undefined).at(-1)).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it('ends a task whose run failed as failed, with the error in the status message', async () => {
    server = await serveA2aAgent(defineAgent('broken', async () => { throw new Error('out of ink'); }), { description: 'Fails' });
    client = await new ClientFactory().createFromUrl(server.url);
    const { responses } = await readAll(client.sendMessageStream(request(userMessage('Write'))));
    const last = responses.at(-1);
    expect(last && stateOf(last)).toBe(TaskState.TASK_STATE_FAILED);
    expect(last?.payload?.$case === 'statusUpdate' && textOf(last.payload.value.status?.message?.parts)).toContain('out of ink');
  });

  it('answers malformed JSON-RPC with the protocol error codes', async () => {
    server = await serveA2aAgent(defineAgent('echo', async (input: string) => input), { description: 'Echoes' });
    const post = async (body: string, version = '1.0') => {
      const response = await fetch(server!.url, { method: 'POST', headers: { 'content-type': 'application/json', 'a2a-version': version }, body });
      return ((await response.json()) as { error?: { code: number } }).error?.code;
    };
    expect(await post('{ not json')).toBe(-32700);
    // A2A 1.0 maps a request that is not JSON-RPC 2.0 (no method, a wrong version) to its malformed-request code.
    expect(await post(JSON.stringify({ jsonrpc: '2.0', id: 1 }))).toBe(-32602);
    expect(await post(JSON.stringify({ jsonrpc: '1.0', id: 1, method: 'GetTask', params: {} }))).toBe(-32602);
    expect(await post(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tasks/steal', params: {} }))).toBe(-32601);
    expect(await post(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'message/stream', params: {} }))).toBe(-32601);
    expect(await post(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'x' } }), '0.3')).toBe(-32009);
    expect(await post(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: 'hi' } }))).toBe(-32602);
    expect(await post(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: globalThis.crypto.randomUUID() } }))).toBe(-32001);
  });
});
