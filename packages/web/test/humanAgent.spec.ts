import { TestScheduler } from 'rxjs/testing';
import { filter, firstValueFrom, lastValueFrom, take, tap, toArray } from 'rxjs';
import { AgentTimeoutError, ConfigError, defineAgent, invoke, invoke$, observeRun, type RunEvent, type RunEventOf } from '@rxagents/core';
import { Patterns } from '@rxagents/patterns';
import { humanAgent, InputRequestNotFoundError, type HumanAgent, type InputRequest } from '@rxagents/web';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

const post = (body: unknown, method = 'POST') =>
  new Request('http://localhost/answer', {
    method,
    headers: { 'content-type': 'application/json' },
    ...(method === 'GET' ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });

/** The next open request of `agent` in `runId`'s run, as that run's page would learn of it. */
const nextRequest = (agent: HumanAgent, runId: string | null): Promise<InputRequest> =>
  firstValueFrom(agent.requests$(runId).pipe(filter((open) => open.length > 0))).then((open) => open[0] as InputRequest);

/** A run asking `agent` for `input`, with a run id of its own; `done` resolves with all its events. */
const askInRun = (agent: HumanAgent, runId: string, input: string) => {
  const done = lastValueFrom(observeRun('ask', input, (run) => invoke$(agent, input, { run }), { runId }).pipe(toArray()));
  return { done, request: () => nextRequest(agent, runId) };
};

describe('humanAgent', () => {
  it('asks with an input-request run event carrying its run, and replies with the answer', async () => {
    const reviewer = humanAgent('reviewer', { prompt: (draft) => `Approve? ${draft}` });
    const events: RunEvent[] = [];
    let onAsked!: (request: InputRequest) => void;
    const told = new Promise<InputRequest>((resolve) => (onAsked = resolve));
    const done = lastValueFrom(
      observeRun('review', 'v2 notes', (run) => invoke$(reviewer, 'v2 notes', { run })).pipe(
        tap((event) => event.type === 'custom' && onAsked(event.data as unknown as InputRequest)),
        toArray(),
      ),
    );
    const request = await told;
    expect(request).toEqual({ runId: expect.stringMatching(UUID), callId: expect.stringMatching(UUID), agentId: 'reviewer', prompt: 'Approve? v2 notes' });
    const { runId: requestRun, callId } = request;
    expect(reviewer.pending(requestRun)).toEqual([request]);

    const response = await reviewer.handleAnswer(post({ runId: requestRun, callId, text: 'Approved' }));
    expect(response.status).toBe(204);
    events.push(...(await done));

    const asked = events.find((event): event is RunEventOf<'custom'> => event.type === 'custom');
    expect(asked?.name).toBe('input-request');
    expect(asked?.data).toEqual(request);
    expect(asked?.runId).toBe(requestRun);
    const callStart = events.find((event) => event.type === 'call-start');
    expect(asked?.callId).toBe(callStart?.callId);
    expect(callId).not.toBe(callStart?.callId);
    expect(callId).not.toBe(callStart?.runId);
    expect(events.filter((event) => event.type === 'text-delta').map((event) => (event as RunEventOf<'text-delta'>).delta)).toEqual(['Approved']);
    expect(events.at(-1)).toMatchObject({ type: 'run-end', success: true, output: 'Approved' });
    expect(reviewer.pending(requestRun)).toEqual([]);
  });

  it("lists each run's requests apart: a run's list and stream never hold another run's question", async () => {
    const person = humanAgent('person');
    const alice = askInRun(person, 'run-alice', 'Alice, ship it?');
    const bob = askInRun(person, 'run-bob', 'Bob, ship it?');
    const seenByAlice: string[][] = [];
    person.requests$('run-alice').subscribe((open) => seenByAlice.push(open.map((request) => request.prompt)));
    const [aliceAsked, bobAsked] = await Promise.all([alice.request(), bob.request()]);
    expect(person.pending('run-alice')).toEqual([aliceAsked]);
    expect(person.pending('run-bob')).toEqual([bobAsked]);
    expect(person.pending('run-carol')).toEqual([]);
    expect(person.pending(null)).toEqual([]);
    expect(aliceAsked.runId).toBe('run-alice');

    person.answer({ runId: 'run-bob', callId: bobAsked.callId, text: 'yes' });
    await bob.done;
    person.answer({ runId: 'run-alice', callId: aliceAsked.callId, text: 'no' });
    await alice.done;
    expect(seenByAlice).toEqual([['Alice, ship it?'], []]);
  });

  it("refuses an answer holding another run's callId with the same 404 as an unknown one, and the question stays open", async () => {
    const person = humanAgent('person');
    const alice = askInRun(person, 'run-alice', 'Alice?');
    const bob = askInRun(person, 'run-bob', 'Bob?');
    const aliceAsked = await alice.request();
    await bob.request();

    const crossRun = await person.handleAnswer(post({ runId: 'run-bob', callId: aliceAsked.callId, text: 'Bob answers for Alice' }));
    const unknown = await person.handleAnswer(post({ runId: 'run-bob', callId: 'f47ac10b-58cc-4372-a567-0e02b2c3d479', text: 'a guess' }));
    expect(crossRun.status).toBe(404);
    expect(unknown.status).toBe(404);
    expect(await crossRun.text()).toBe(await unknown.text());
    expect(() => person.answer({ runId: 'run-bob', callId: aliceAsked.callId, text: 'again' })).toThrow(InputRequestNotFoundError);
    expect(() => person.answer({ runId: null, callId: aliceAsked.callId, text: 'again' })).toThrow(InputRequestNotFoundError);
    expect(person.pending('run-alice')).toEqual([aliceAsked]);

    expect((await person.handleAnswer(post({ runId: 'run-alice', callId: aliceAsked.callId, text: 'Alice answers' }))).status).toBe(204);
    expect((await alice.done).at(-1)).toMatchObject({ type: 'run-end', output: 'Alice answers' });
  });

  it('answers a call outside any run in code only, never over HTTP', async () => {
    const person = humanAgent('person');
    const reply = invoke(person, 'name?');
    const [request] = person.pending(null);
    expect(request).toMatchObject({ runId: null, prompt: 'name?' });
    const { callId } = request as InputRequest;
    expect((await person.handleAnswer(post({ runId: null, callId, text: 'Ann' }))).status).toBe(400);
    expect((await person.handleAnswer(post({ callId, text: 'Ann' }))).status).toBe(400);
    expect(() => person.answer({ runId: 'some-run', callId, text: 'Ann' })).toThrow(InputRequestNotFoundError);
    person.answer({ runId: null, callId, text: 'Ann' });
    await expect(reply).resolves.toBe('Ann');
  });

  it('gives every call its own unguessable callId and answers each call with its own text', async () => {
    const person = humanAgent('person');
    const first = invoke(person, 'one');
    const second = invoke(person, 'two');
    const open = person.pending(null);
    expect(open.map((request) => request.prompt)).toEqual(['one', 'two']);
    expect(new Set(open.map((request) => request.callId)).size).toBe(2);
    person.answer({ runId: null, callId: (open[1] as InputRequest).callId, text: 'answer two' });
    person.answer({ runId: null, callId: (open[0] as InputRequest).callId, text: 'answer one' });
    await expect(first).resolves.toBe('answer one');
    await expect(second).resolves.toBe('answer two');
  });

  it('lists open requests on requests$ as they open and close', async () => {
    const person = humanAgent('person');
    const lists = lastValueFrom(person.requests$(null).pipe(take(3), toArray()));
    const reply = invoke(person, 'hello?');
    person.answer({ runId: null, callId: (person.pending(null)[0] as InputRequest).callId, text: 'hi' });
    await reply;
    expect((await lists).map((open) => open.map((request) => request.prompt))).toEqual([[], ['hello?'], []]);
  });

  it('refuses a runId that is not a string or null where a run is listed', () => {
    const person = humanAgent('person');
    expect(() => (person.pending as () => unknown)()).toThrow(ConfigError);
    expect(() => (person.requests$ as () => unknown)()).toThrow(ConfigError);
  });

  it('rejects bad answers with 400, unknown or answered requests with 404 and other methods with 405', async () => {
    const person = humanAgent('person', { maxTextLength: 5 });
    const { done, request } = askInRun(person, 'run-1', 'name?');
    const { runId, callId } = await request();

    const badJson = await person.handleAnswer(post('{not json'));
    expect(badJson.status).toBe(400);
    const missingText = await person.handleAnswer(post({ runId, callId }));
    expect(missingText.status).toBe(400);
    expect(JSON.stringify(await missingText.json())).toContain('text');
    const tooLong = await person.handleAnswer(post({ runId, callId, text: 'toolong' }));
    expect(tooLong.status).toBe(400);
    expect((await tooLong.json()) as unknown).toMatchObject({ error: { issues: [{ path: 'text', rule: 'must be at most 5 characters' }] } });
    const huge = await person.handleAnswer(post({ runId, callId, text: 'x'.repeat(100_000) }));
    expect(huge.status).toBe(413);
    const extraField = await person.handleAnswer(post({ runId, callId, text: 'ok', admin: true }));
    expect(extraField.status).toBe(400);
    expect((await person.handleAnswer(post({ runId, callId: 'guess', text: 'Ann' }))).status).toBe(404);
    expect((await person.handleAnswer(post(undefined, 'GET'))).status).toBe(405);
    expect(person.pending(runId)).toHaveLength(1);

    expect((await person.handleAnswer(post({ runId, callId, text: 'Ann' }))).status).toBe(204);
    expect((await done).at(-1)).toMatchObject({ type: 'run-end', output: 'Ann' });
    const again = await person.handleAnswer(post({ runId, callId, text: 'Bob' }));
    expect(again.status).toBe(404);
    expect(((await again.json()) as { error: { code: string } }).error.code).toBe('INPUT_REQUEST_NOT_FOUND');
    expect(() => person.answer({ runId, callId, text: 'Bob' })).toThrow(InputRequestNotFoundError);
    expect(() => person.answer({ runId, callId, text: 'much too long' })).toThrow(ConfigError);
  });

  it('echoes nothing of the request in its 400 and 404 answers', async () => {
    const person = humanAgent('person', { maxTextLength: 5 });
    const { request } = askInRun(person, 'run-1', 'name?');
    const { runId, callId } = await request();
    const marker = '<script>steal()</script>';
    const answers = await Promise.all(
      [
        { runId, callId: marker, text: 'Ann' },
        { runId: marker, callId, text: 'Ann' },
        { runId, callId, text: marker },
        { runId, callId, text: 'Ann', [marker]: true },
        { runId: 42, callId: [marker], text: { marker } },
        [marker],
        marker,
      ].map(async (body) => {
        const response = await person.handleAnswer(post(JSON.stringify(body)));
        return { status: response.status, text: await response.text() };
      }),
    );
    expect(answers.map((answer) => answer.status)).toEqual([404, 404, 400, 400, 400, 400, 400]);
    for (const answer of answers) expect(answer.text).not.toContain('steal');
  });

  it('gives every requests$ subscriber the lists in order when one answers as it is told of a request', async () => {
    const reviewer = humanAgent('reviewer');
    reviewer.requests$(null).subscribe((open) => {
      for (const { callId } of open) reviewer.answer({ runId: null, callId, text: 'Approved' });
    });
    const seen: number[][] = [];
    reviewer.requests$(null).subscribe((open) => seen.push(open.map((request) => request.prompt.length)));
    expect(await invoke(reviewer, 'v2 notes')).toBe('Approved');
    expect(seen.at(-1)).toEqual([]);
    expect(seen).toEqual([[], [8], []]);
    expect(reviewer.pending(null)).toEqual([]);
  });

  it('forgets the request when the caller unsubscribes', async () => {
    const person = humanAgent('person');
    const subscription = observeRun('ask', 'still there?', (run) => invoke$(person, 'still there?', { run }), { runId: 'run-1' }).subscribe();
    const { callId } = person.pending('run-1')[0] as InputRequest;
    subscription.unsubscribe();
    expect(person.pending('run-1')).toEqual([]);
    expect((await person.handleAnswer(post({ runId: 'run-1', callId, text: 'yes' }))).status).toBe(404);
  });

  it('forgets the request when the caller aborts, and the call rejects with the abort', async () => {
    const person = humanAgent('person');
    const controller = new AbortController();
    const reply = invoke(person, 'wait', { signal: controller.signal }).catch((error: unknown) => error);
    expect(person.pending(null)).toHaveLength(1);
    controller.abort();
    expect(person.pending(null)).toEqual([]);
    expect(await reply).toMatchObject({ name: 'AbortError' });
  });

  it('times out like any agent and closes the request', () => {
    const scheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
    scheduler.run(({ expectObservable, flush }) => {
      const person = humanAgent('person');
      expectObservable(invoke$(person, 'quick!', { timeout: 1_000, scheduler })).toBe('1000ms #', undefined, expect.any(AgentTimeoutError));
      flush();
      expect(person.pending(null)).toEqual([]);
    });
  });

  it('rejects a blank id and unknown options with a ConfigError naming the field', () => {
    expect(() => humanAgent(' ')).toThrow(ConfigError);
    expect(() => humanAgent('person', { maxTextLenght: 3 } as never)).toThrow(/maxTextLenght/);
    expect(() => humanAgent('person', { maxTextLength: 0 })).toThrow(/maxTextLength/);
  });

  it('takes part in a debate with two scripted agents, its answers posted over HTTP as the page learns of them', async () => {
    const optimist = defineAgent('optimist', async () => 'Ship it.');
    const skeptic = defineAgent('skeptic', async () => 'Wait a week.');
    const chair = humanAgent('chair');
    const answers = ['Friday then.', 'Monday, final.'];
    const posted: Promise<Response>[] = [];
    const events = await lastValueFrom(
      Patterns.debate({ agents: [optimist, skeptic, chair], maxRounds: 2 })
        .events$('Ship on Friday?')
        .pipe(
          tap((event) => {
            if (event.type !== 'custom' || event.name !== 'input-request') return;
            const { runId, callId } = event.data as unknown as InputRequest;
            posted.push(chair.handleAnswer(post({ runId, callId, text: answers.shift() })));
          }),
          toArray(),
        ),
    );
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

  it.each([null, undefined, 42, {}])('handleAnswer rejects (never throws) for %p as the request, with a ConfigError naming request', async (bad) => {
    const reviewer = humanAgent('reviewer');
    const answered = reviewer.handleAnswer(bad as never);
    await expect(answered).rejects.toThrow(ConfigError);
    await expect(answered).rejects.toThrow(/^HumanAgent.handleAnswer: request must be a Request/);
  });

  it.each([undefined, null, 42, {}])('%p as chat options, or a non-string input, is a ConfigError naming the argument (the Agent contract; stream and invoke always pass both)', (bad) => {
    const agent = humanAgent('reviewer');
    expect(() => agent.chat('hi', bad as never)).toThrow(ConfigError);
    expect(() => agent.chat('hi', bad as never)).toThrow(/^reviewer.chat: options must be ChatOptions/);
    expect(() => agent.chat(bad as never, { signal: new AbortController().signal })).toThrow(/^reviewer.chat: input must be a string/);
  });
});
