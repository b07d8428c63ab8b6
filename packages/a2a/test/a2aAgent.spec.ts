import { TaskState } from '@a2a-js/sdk';
import { ClientFactory, JsonRpcTransportFactory } from '@a2a-js/sdk/client';
import type { AgentExecutor, ExecutionEventBus, RequestContext } from '@a2a-js/sdk/server';
import { AgentError, answerInterrupt, invoke, invoke$, observeRun, stream, type RunEvent } from '@rxagents/core';
import { lastValueFrom, tap, toArray } from 'rxjs';
import { a2aAgent, A2aInputRequiredError, A2aTaskFailedError } from '../src';
import { serveWithSdk, type SdkServer } from './support/sdkServer';
import { publishStatus, publishTask, publishText } from './support/script';
import { textOf, waitFor } from './support/a2a';

/** A scripted agent written against the A2A SDK: `execute` and `cancelTask` as its samples write them. */
function scripted(execute: (context: RequestContext, bus: ExecutionEventBus) => Promise<void>, cancelTask: AgentExecutor['cancelTask'] = async () => undefined): AgentExecutor {
  return { execute, cancelTask };
}

describe('a2aAgent, calling an agent served by the A2A SDK', () => {
  let sdk: SdkServer | undefined;
  afterEach(async () => {
    await sdk?.close();
    sdk = undefined;
  });

  it('passes the streamed text on as chunks, from the card URL', async () => {
    sdk = await serveWithSdk(scripted(async (context, bus) => {
      publishTask(context, bus, TaskState.TASK_STATE_SUBMITTED);
      publishStatus(context, bus, TaskState.TASK_STATE_WORKING);
      for (const chunk of ['Sunny ', 'and ', 'warm.']) publishText(context, bus, chunk);
      publishStatus(context, bus, TaskState.TASK_STATE_COMPLETED);
    }));
    const weather = a2aAgent({ id: 'weather', url: `${sdk.url}.well-known/agent-card.json` });
    expect(await lastValueFrom(stream(weather, 'Weather in Oslo?').pipe(toArray()))).toEqual(['Sunny ', 'and ', 'warm.']);
  });

  it('cancels the remote task when the call is unsubscribed', async () => {
    const canceled: string[] = [];
    const finish = new Map<string, () => void>();
    sdk = await serveWithSdk(scripted(
      async (context, bus) => {
        publishTask(context, bus);
        publishText(context, bus, 'Thinking...');
        await new Promise<void>((resolve) => finish.set(context.taskId, resolve));
      },
      async (taskId, bus) => {
        canceled.push(taskId);
        bus.publish({ kind: 'statusUpdate', data: { taskId, contextId: '', status: { state: TaskState.TASK_STATE_CANCELED, message: undefined, timestamp: undefined }, metadata: {} } });
        finish.get(taskId)?.();
      },
    ));
    const slow = a2aAgent({ id: 'slow', url: sdk.url });
    const chunks: string[] = [];
    const subscription = stream(slow, 'Think hard').subscribe((chunk) => chunks.push(chunk));
    await waitFor(() => chunks.length > 0);
    const [taskId] = [...finish.keys()];
    subscription.unsubscribe();
    await waitFor(() => canceled.length > 0);
    expect(canceled).toEqual([taskId]);
  });

  it('turns input-required into an interrupt of the run and sends the answer to the task', async () => {
    sdk = await serveWithSdk(scripted(async (context, bus) => {
      publishTask(context, bus);
      if (context.task === undefined) return publishStatus(context, bus, TaskState.TASK_STATE_INPUT_REQUIRED, 'Which city?');
      publishText(context, bus, `Sunny in ${textOf(context.userMessage.parts)}.`);
      publishStatus(context, bus, TaskState.TASK_STATE_COMPLETED);
    }));
    const weather = a2aAgent({ id: 'weather', url: sdk.url });
    const events: RunEvent[] = [];
    const run$ = observeRun('forecast', 'Weather?', (run) => invoke$(weather, 'Weather?', { run })).pipe(
      tap((event) => {
        events.push(event);
        if (event.type === 'interrupt') answerInterrupt(event.runId, event.interruptId, 'Oslo');
      }),
    );
    await lastValueFrom(run$);
    const asked = events.find((event) => event.type === 'interrupt');
    expect(asked?.type === 'interrupt' && asked.question).toBe('Which city?');
    const end = events.at(-1);
    expect(end?.type === 'run-end' && end.output).toBe('Sunny in Oslo.');
  });

  it('fails a call outside a run that the remote agent asks for input, with a typed error', async () => {
    sdk = await serveWithSdk(scripted(async (context, bus) => {
      publishTask(context, bus);
      publishStatus(context, bus, TaskState.TASK_STATE_INPUT_REQUIRED, 'Which city?');
    }));
    const error = await invoke(a2aAgent({ id: 'weather', url: sdk.url }), 'Weather?').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AgentError);
    expect((error as AgentError).cause).toBeInstanceOf(A2aInputRequiredError);
    expect((error as AgentError).cause).toMatchObject({ code: 'A2A_INPUT_REQUIRED', question: 'Which city?' });
  });

  it('fails the call with A2aTaskFailedError when the remote task fails', async () => {
    sdk = await serveWithSdk(scripted(async (context, bus) => {
      publishTask(context, bus);
      publishStatus(context, bus, TaskState.TASK_STATE_FAILED, 'No forecast for Atlantis');
    }));
    const error = await invoke(a2aAgent({ id: 'weather', url: sdk.url }), 'Weather in Atlantis?').catch((caught: unknown) => caught);
    expect((error as AgentError).cause).toBeInstanceOf(A2aTaskFailedError);
    expect((error as AgentError).cause).toMatchObject({ code: 'A2A_TASK_FAILED', state: 'failed', reason: 'No forecast for Atlantis' });
  });

  it('resubscribes when the stream drops and passes on only the text it had not seen', async () => {
    const finish = new Map<string, () => void>();
    sdk = await serveWithSdk(scripted(async (context, bus) => {
      publishTask(context, bus);
      publishText(context, bus, 'Part one. ');
      await new Promise<void>((resolve) => finish.set(context.taskId, resolve));
      publishText(context, bus, 'Part two.');
      publishStatus(context, bus, TaskState.TASK_STATE_COMPLETED);
    }));
    const methods: string[] = [];
    const fetchImpl: typeof fetch = (input, init) => {
      if (typeof init?.body === 'string') methods.push((JSON.parse(init.body) as { method: string }).method);
      return fetch(input, init);
    };
    const client = await new ClientFactory({ transports: [new JsonRpcTransportFactory({ fetchImpl })] }).createFromUrl(sdk.url);
    const writer = a2aAgent({ id: 'writer', client });
    const chunks: string[] = [];
    const done = lastValueFrom(stream(writer, 'Write').pipe(tap((chunk) => chunks.push(chunk)), toArray()));
    await waitFor(() => chunks.length === 1);
    sdk.server.closeAllConnections();
    await waitFor(() => methods.includes('SubscribeToTask'));
    [...finish.values()].forEach((resume) => resume());
    expect(await done).toEqual(['Part one. ', 'Part two.']);
    // The task may end before the subscription reaches the server; then it is read once more.
    expect(methods.slice(0, 3)).toEqual(['SendStreamingMessage', 'GetTask', 'SubscribeToTask']);
  });
});
