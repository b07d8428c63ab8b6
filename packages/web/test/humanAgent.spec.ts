import { TestScheduler } from 'rxjs/testing';
import { filter, firstValueFrom, lastValueFrom, take, toArray } from 'rxjs';
import { AgentTimeoutError, ConfigError, defineAgent, invoke, invoke$, observeRun, type RunEvent, type RunEventOf } from '@rxagents/core';
import { Patterns } from '@rxagents/patterns';
import { humanAgent, InputRequestNotFoundError, type InputRequest } from '@rxagents/web';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

const post = (body: unknown, method = 'POST') =>
  new Request('http://localhost/answer', {
    method,
    headers: { 'content-type': 'application/json' },
    ...(method === 'GET' ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });

/** The next open request of `agent`, as a page would learn of it. */
const nextRequest = (agent: ReturnType<typeof humanAgent>): Promise<InputRequest> =>
  firstValueFrom(agent.requests$.pipe(filter((open) => open.length > 0))).then((open) => open[0] as InputRequest);

describe('humanAgent', () => {
  it('asks with an input-request run event and replies with the answer', async () => {
    const reviewer = humanAgent('reviewer', { prompt: (draft) => `Approve? ${draft}` });
    const events: RunEvent[] = [];
    const done = lastValueFrom(observeRun('review', 'v2 notes', (run) => invoke$(reviewer, 'v2 notes', { run })).pipe(toArray()));
    const request = await nextRequest(reviewer);
    expect(request).toEqual({ callId: expect.stringMatching(UUID), agentId: 'reviewer', prompt: 'Approve? v2 notes' });
    expect(reviewer.pending()).toEqual([request]);

    const response = await reviewer.handleAnswer(post({ callId: request.callId, text: 'Approved' }));
    expect(response.status).toBe(204);
    events.push(...(await done));

    const asked = events.find((event): event is RunEventOf<'custom'> => event.type === 'custom');
    expect(asked?.name).toBe('input-request');
    expect(asked?.data).toEqual(request);
    const callStart = events.find((event) => event.type === 'call-start');
    expect(asked?.callId).toBe(callStart?.callId);
    expect(request.callId).not.toBe(callStart?.callId);
    expect(request.callId).not.toBe(callStart?.runId);
    expect(events.filter((event) => event.type === 'text-delta').map((event) => (event as RunEventOf<'text-delta'>).delta)).toEqual(['Approved']);
    expect(events.at(-1)).toMatchObject({ type: 'run-end', success: true, output: 'Approved' });
    expect(reviewer.pending()).toEqual([]);
  });

  it('gives every call its own unguessable callId and answers each call with its own text', async () => {
    const person = humanAgent('person');
    const first = invoke(person, 'one');
    const second = invoke(person, 'two');
    const open = person.pending();
    expect(open.map((request) => request.prompt)).toEqual(['one', 'two']);
    expect(new Set(open.map((request) => request.callId)).size).toBe(2);
    person.answer((open[1] as InputRequest).callId, 'answer two');
    person.answer((open[0] as InputRequest).callId, 'answer one');
    await expect(first).resolves.toBe('answer one');
    await expect(second).resolves.toBe('answer two');
  });

  it('lists open requests on requests$ as they open and close', async () => {
    const person = humanAgent('person');
    const lists = lastValueFrom(person.requests$.pipe(take(3), toArray()));
    const reply = invoke(person, 'hello?');
    person.answer((person.pending()[0] as InputRequest).callId, 'hi');
    await reply;
    expect((await lists).map((open) => open.map((request) => request.prompt))).toEqual([[], ['hello?'], []]);
  });

  it('rejects bad answers with 400, unknown or answered requests with 404 and other methods with 405', async () => {
    const person = humanAgent('person', { maxTextLength: 5 });
    const reply = invoke(person, 'name?');
    const { callId } = person.pending()[0] as InputRequest;

    const badJson = await person.handleAnswer(post('{not json'));
    expect(badJson.status).toBe(400);
    const missingText = await person.handleAnswer(post({ callId }));
    expect(missingText.status).toBe(400);
    expect(JSON.stringify(await missingText.json())).toContain('text');
    const tooLong = await person.handleAnswer(post({ callId, text: 'toolong' }));
    expect(tooLong.status).toBe(400);
    expect(((await tooLong.json()) as { error: { message: string } }).error.message).toContain('at most 5 characters');
    const huge = await person.handleAnswer(post({ callId, text: 'x'.repeat(100_000) }));
    expect(huge.status).toBe(413);
    const extraField = await person.handleAnswer(post({ callId, text: 'ok', admin: true }));
    expect(extraField.status).toBe(400);
    expect((await person.handleAnswer(post({ callId: 'guess', text: 'Ann' }))).status).toBe(404);
    expect((await person.handleAnswer(post(undefined, 'GET'))).status).toBe(405);
    expect(person.pending()).toHaveLength(1);

    expect((await person.handleAnswer(post({ callId, text: 'Ann' }))).status).toBe(204);
    await expect(reply).resolves.toBe('Ann');
    const again = await person.handleAnswer(post({ callId, text: 'Bob' }));
    expect(again.status).toBe(404);
    expect(((await again.json()) as { error: { code: string } }).error.code).toBe('INPUT_REQUEST_NOT_FOUND');
    expect(() => person.answer(callId, 'Bob')).toThrow(InputRequestNotFoundError);
    expect(() => person.answer(callId, 'much too long')).toThrow(ConfigError);
  });

  it('gives every requests$ subscriber the lists in order when one answers as it is told of a request', async () => {
    const reviewer = humanAgent('reviewer');
    reviewer.requests$.subscribe((open) => {
      for (const { callId } of open) reviewer.answer(callId, 'Approved');
    });
    const seen: number[][] = [];
    reviewer.requests$.subscribe((open) => seen.push(open.map((request) => request.prompt.length)));
    expect(await invoke(reviewer, 'v2 notes')).toBe('Approved');
    expect(seen.at(-1)).toEqual([]);
    expect(seen).toEqual([[], [8], []]);
    expect(reviewer.pending()).toEqual([]);
  });

  it('forgets the request when the caller unsubscribes', async () => {
    const person = humanAgent('person');
    const subscription = invoke$(person, 'still there?').subscribe();
    const { callId } = person.pending()[0] as InputRequest;
    subscription.unsubscribe();
    expect(person.pending()).toEqual([]);
    expect((await person.handleAnswer(post({ callId, text: 'yes' }))).status).toBe(404);
  });

  it('forgets the request when the caller aborts, and the call rejects with the abort', async () => {
    const person = humanAgent('person');
    const controller = new AbortController();
    const reply = invoke(person, 'wait', { signal: controller.signal }).catch((error: unknown) => error);
    expect(person.pending()).toHaveLength(1);
    controller.abort();
    expect(person.pending()).toEqual([]);
    expect(await reply).toMatchObject({ name: 'AbortError' });
  });

  it('times out like any agent and closes the request', () => {
    const scheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
    scheduler.run(({ expectObservable, flush }) => {
      const person = humanAgent('person');
      expectObservable(invoke$(person, 'quick!', { timeout: 1_000, scheduler })).toBe('1000ms #', undefined, expect.any(AgentTimeoutError));
      flush();
      expect(person.pending()).toEqual([]);
    });
  });

  it('rejects a blank id and unknown options with a ConfigError naming the field', () => {
    expect(() => humanAgent(' ')).toThrow(ConfigError);
    expect(() => humanAgent('person', { maxTextLenght: 3 } as never)).toThrow(/maxTextLenght/);
    expect(() => humanAgent('person', { maxTextLength: 0 })).toThrow(/maxTextLength/);
  });

  it('takes part in a debate with two scripted agents, its answers posted over HTTP', async () => {
    const optimist = defineAgent('optimist', async () => 'Ship it.');
    const skeptic = defineAgent('skeptic', async () => 'Wait a week.');
    const chair = humanAgent('chair');
    const answers = ['Friday then.', 'Monday, final.'];
    const posted: Promise<Response>[] = [];
    chair.requests$.subscribe((open) => {
      for (const request of open) {
        const text = answers.shift();
        if (text !== undefined) posted.push(chair.handleAnswer(post({ callId: request.callId, text })));
      }
    });
    const events = await lastValueFrom(Patterns.debate({ agents: [optimist, skeptic, chair], maxRounds: 2 }).events$('Ship on Friday?').pipe(toArray()));
    const messages = events.filter((event): event is RunEventOf<'message'> => event.type === 'message').map((event) => [event.speaker, event.content]);
    expect(messages).toEqual([
      ['optimist', 'Ship it.'],
      ['skeptic', 'Wait a week.'],
      ['chair', 'Friday then.'],
      ['optimist', 'Ship it.'],
      ['skeptic', 'Wait a week.'],
      ['chair', 'Monday, final.'],
    ]);
    expect(events.filter((event) => event.type === 'custom' && event.name === 'input-request')).toHaveLength(2);
    expect((await Promise.all(posted)).map((response) => response.status)).toEqual([204, 204]);
    expect(events.at(-1)).toMatchObject({ type: 'run-end', success: true });
  });
});
