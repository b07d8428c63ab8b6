import { TaskState, type StreamResponse } from '@a2a-js/sdk';
import { ClientFactory } from '@a2a-js/sdk/client';
import { askForApproval, defineAgent } from '@rxagents/core';
import { Patterns } from '@rxagents/patterns';
import { map, Observable } from 'rxjs';
import { serveA2aAgent, type A2aAgentServer } from '../src';
import { readAll, request, stateOf, textOf, userMessage, waitFor } from './support/a2a';

describe('serveA2aAgent serving a pattern (asAgent), driven by the A2A SDK client', () => {
  let server: A2aAgentServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('CancelTask aborts every agent of the pattern', async () => {
    const started: string[] = [];
    const aborted: string[] = [];
    const researcher = (name: string) =>
      defineAgent(name, (_input: string, { signal }) => new Observable<string>(() => {
        started.push(name);
        signal.addEventListener('abort', () => aborted.push(name));
      }));
    const team = Patterns.parallel({ agents: [researcher('flights'), researcher('hotels')] }).asAgent('team');
    server = await serveA2aAgent(team, { description: 'Researches a trip' });
    const client = await new ClientFactory().createFromUrl(server.url);
    let taskId = '';
    const responses: StreamResponse[] = [];
    const reading = (async () => {
      for await (const response of client.sendMessageStream(request(userMessage('Lisbon in May')))) {
        responses.push(response);
        if (response.payload?.$case === 'task') taskId = response.payload.value.id;
      }
    })();
    await waitFor(() => started.length === 2 && taskId !== '');
    await client.cancelTask({ tenant: '', id: taskId, metadata: {} });
    await reading;
    expect(aborted.sort()).toEqual(['flights', 'hotels']);
    expect(responses.map(stateOf).filter((state) => state !== undefined).at(-1)).toBe(TaskState.TASK_STATE_CANCELED);
  });

  it('an approval asked deep in the run is answered by a data part; a wrong answer is asked again', async () => {
    const booker = defineAgent('booker', (_input: string, { run }) =>
      askForApproval(run, 'book', { hotel: 'Alfama' }, { question: 'Book the Alfama hotel?' }).pipe(map((decision) => (decision.approved ? 'Booked.' : 'Not booked.'))));
    const team = Patterns.sequence({ agents: [booker] }).asAgent('team');
    server = await serveA2aAgent(team, { description: 'Books a trip' });
    const client = await new ClientFactory().createFromUrl(server.url);
    const asked = await readAll(client.sendMessageStream(request(userMessage('Book it'))));
    const question = asked.responses.at(-1)?.payload;
    expect(question?.$case === 'statusUpdate' && question.value.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const status = question?.$case === 'statusUpdate' ? question.value : undefined;
    expect(textOf(status?.status?.message?.parts)).toBe('Book the Alfama hotel?');
    expect(status?.status?.message?.metadata).toMatchObject({ kind: 'approval', action: 'book', args: { hotel: 'Alfama' } });
    const at = { taskId: status?.taskId ?? '', contextId: status?.contextId ?? '' };

    const wrong = await readAll(client.sendMessageStream(request(userMessage('maybe', at))));
    const again = wrong.responses.at(-1)?.payload;
    expect(again?.$case === 'statusUpdate' && again.value.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(again?.$case === 'statusUpdate' && textOf(again.value.status?.message?.parts)).toMatch(/^That answer does not fit .*Book the Alfama hotel\?$/);

    const approval = userMessage('', at);
    approval.parts = [{ content: { $case: 'data', value: { approved: true } }, metadata: {}, filename: '', mediaType: 'application/json' }];
    const answered = await readAll(client.sendMessageStream(request(approval)));
    expect(answered.responses.map(stateOf).filter((state) => state !== undefined).at(-1)).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(answered.text).toContain('Booked.');
  });
});
