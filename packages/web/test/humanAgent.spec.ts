import { TestScheduler } from 'rxjs/testing';
import { lastValueFrom, map, switchMap, tap, toArray } from 'rxjs';
import {
  answerInterrupt,
  ConfigError,
  defineAgent,
  invoke,
  invoke$,
  MemoryRunStore,
  observeRun,
  pendingInterrupts,
  type RunContext,
  type RunEvent,
  type RunEventOf,
} from '@rxagents/core';
import { Patterns } from '@rxagents/patterns';
import { createRunRegistry, humanAgent, type DurableRunRegistry } from '@rxagents/web';
import { bodyOf, nextInterrupt, post } from './helpers/answers';
import { settle, waitFor } from './helpers/durable';

const quiet = { heartbeatMs: Infinity, stallTimeoutMs: Infinity } as const;

/** A chain: a writer drafts, then the person reviews the draft; the review is the run's output. */
const reviewChain = (reviewer: ReturnType<typeof humanAgent>) => (input: string) => (run: RunContext) =>
  invoke$(defineAgent('writer', async (topic) => `Draft on ${topic}`), input, { run }).pipe(switchMap((draft) => invoke$(reviewer, draft, { run })));

describe('humanAgent', () => {
  const registries: { close(): void }[] = [];
  afterEach(() => registries.splice(0).forEach((registry) => registry.close()));

  it('asks as an input interrupt of its run in a chain, answered through the registry; the answer is its reply', async () => {
    const reviewer = humanAgent('reviewer', { prompt: (draft) => `Approve? ${draft}` });
    const registry = createRunRegistry(quiet);
    registries.push(registry);
    const { runId } = registry.start('review', 'pricing', reviewChain(reviewer)('pricing'));
    const asked = await nextInterrupt(runId);
    expect(asked).toMatchObject({ kind: 'input', question: 'Approve? Draft on pricing', schema: expect.objectContaining({ type: 'string', maxLength: 10_000 }) });
    expect(asked.interruptId).toMatch(/^[0-9a-f-]{36}$/);
    expect((await registry.handleAnswer(runId, post({ interruptId: asked.interruptId, answer: 'Approved' }))).status).toBe(204);
    const text = await registry.response(runId, new Request('http://x')).text();
    const events = text
      .split('\n\n')
      .filter((frame) => frame.includes('data: '))
      .map((frame) => JSON.parse(frame.slice(frame.indexOf('data: ') + 6)) as RunEvent);
    expect(events.at(-1)).toMatchObject({ type: 'run-end', parentCallId: null, success: true, output: 'Approved' });
    expect(events.find((event) => event.type === 'text-delta' && event.agentId === 'reviewer')).toMatchObject({ delta: 'Approved' });
  });

  it('refuses an answer that is not a string of at most maxTextLength characters, and keeps asking', async () => {
    const person = humanAgent('person', { maxTextLength: 5 });
    const runId = 'human-run-0';
    const done = lastValueFrom(observeRun('ask', 'Name?', (run) => invoke$(person, 'Name?', { run }), { runId }).pipe(toArray()));
    await nextInterrupt(runId);
    const [asked] = pendingInterrupts(runId);
    expect(() => answerInterrupt(runId, asked!.interruptId, 'toolong')).toThrow(/at most 5 characters/);
    expect(() => answerInterrupt(runId, asked!.interruptId, 42)).toThrow(/INTERRUPT_ANSWER_INVALID|invalid/);
    expect(pendingInterrupts(runId)).toHaveLength(1);
    answerInterrupt(runId, asked!.interruptId, 'Ada');
    expect((await done).at(-1)).toMatchObject({ type: 'run-end', output: 'Ada' });
  });

  it('a 422 over HTTP names the rule of a too long answer, never the answer', async () => {
    const person = humanAgent('person', { maxTextLength: 5 });
    const registry = createRunRegistry(quiet);
    registries.push(registry);
    const { runId } = registry.start('ask', 'Name?', (run) => invoke$(person, 'Name?', { run }));
    const { interruptId } = await nextInterrupt(runId);
    const response = await registry.handleAnswer(runId, post({ interruptId, answer: 'secret-and-long' }));
    expect(response.status).toBe(422);
    const body = await bodyOf(response);
    expect(JSON.stringify(body)).not.toContain('secret');
    expect(body).toMatchObject({ error: { issues: [{ path: '', rule: 'must be at most 5 characters' }] } });
  });

  it('survives a restart: a second registry on the same store takes the answer to the question the first one asked', async () => {
    const store = new MemoryRunStore();
    const reviewer = humanAgent('reviewer');
    const runs = new Map([['review', reviewChain(reviewer)]]);
    const first: DurableRunRegistry = createRunRegistry({ store, runs, ...quiet });
    const { runId } = first.start('review', 'pricing');
    const asked = await nextInterrupt(runId);
    await waitFor(async () => {
      for await (const { event } of store.read(runId)) if (event.type === 'interrupt') return true;
      return false;
    });
    first.close();
    await settle();

    const second = createRunRegistry({ store, runs, ...quiet });
    registries.push(second);
    expect((await second.handleAnswer(runId, post({ interruptId: asked.interruptId, answer: 'Ship it' }))).status).toBe(204);
    await waitFor(async () => (await store.summary(runId))?.status === 'succeeded');
    const journal: RunEvent[] = [];
    for await (const { event } of store.read(runId)) journal.push(event);
    expect(journal.at(-1)).toMatchObject({ type: 'run-end', output: 'Ship it' });
    // The writer's finished call was answered from the journal: it was not asked again.
    expect(journal.filter((event) => event.type === 'call-start' && event.agentId === 'writer')).toHaveLength(1);
  });

  it('a call outside any run is a ConfigError: nobody could be asked', async () => {
    const person = humanAgent('person');
    const failed = await invoke(person, 'Anyone?').catch((error: unknown) => error);
    expect(failed).toMatchObject({ cause: expect.any(ConfigError) });
    expect((failed as { cause: Error }).cause.message).toMatch(/^person.chat: options.run must be the run of the call/);
    expect(() => person.chat('Anyone?', { signal: new AbortController().signal })).toThrow(ConfigError);
  });

  it('closes its question when its caller unsubscribes: a late answer is not found', () => {
    const person = humanAgent('person');
    const subscription = observeRun('ask', 'still there?', (run) => invoke$(person, 'still there?', { run }), { runId: 'human-run-1' }).subscribe();
    const [asked] = pendingInterrupts('human-run-1');
    subscription.unsubscribe();
    expect(pendingInterrupts('human-run-1')).toEqual([]);
    expect(() => answerInterrupt('human-run-1', asked!.interruptId, 'yes')).toThrow(/No open interrupt/);
  });

  it('times out like any agent call, on virtual time, and closes its question', () => {
    const scheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
    scheduler.run(({ expectObservable, flush }) => {
      const person = humanAgent('person');
      const run$ = observeRun('ask', 'quick!', (run) => invoke$(person, 'quick!', { run, timeout: 1_000, scheduler }), { runId: 'human-run-2', scheduler });
      const seen = run$.pipe(map((event) => ('error' in event && event.error !== undefined ? `${event.type}:${event.error.code ?? event.error.name}` : event.type)));
      expectObservable(seen.pipe(toArray(), map((types) => types.join(' ')))).toBe('1000ms (x|)', {
        x: 'run-start call-start interrupt interrupt-end:AbortError call-error:AGENT_TIMEOUT run-end:AGENT_TIMEOUT',
      });
      flush();
      expect(pendingInterrupts('human-run-2')).toEqual([]);
    });
  });

  it('takes part in a debate with two scripted agents, its answers given as the page learns of its questions', async () => {
    const optimist = defineAgent('optimist', async () => 'Ship it.');
    const skeptic = defineAgent('skeptic', async () => 'Wait a week.');
    const chair = humanAgent('chair');
    const answers = ['Friday then.', 'Monday, final.'];
    const events = await lastValueFrom(
      Patterns.debate({ agents: [optimist, skeptic, chair], maxRounds: 2 })
        .events$('Ship on Friday?')
        .pipe(
          tap((event) => {
            if (event.type === 'interrupt') queueMicrotask(() => answerInterrupt(event.runId, event.interruptId, answers.shift()));
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
    expect(events.filter((event) => event.type === 'interrupt')).toHaveLength(2);
    expect(events.at(-1)).toMatchObject({ type: 'run-end', success: true });
  });

  it('rejects a blank id and unknown options with a ConfigError naming the field', () => {
    expect(() => humanAgent(' ')).toThrow(ConfigError);
    expect(() => humanAgent('person', { maxTextLenght: 3 } as never)).toThrow(/maxTextLenght/);
    expect(() => humanAgent('person', { maxTextLength: 0 })).toThrow(/maxTextLength/);
  });

  it.each([undefined, null, 42, {}])('%p as chat options, or a non-string input, is a ConfigError naming the argument (the Agent contract; stream and invoke always pass both)', (bad) => {
    const agent = humanAgent('reviewer');
    expect(() => agent.chat('hi', bad as never)).toThrow(ConfigError);
    expect(() => agent.chat('hi', bad as never)).toThrow(/^reviewer.chat: options must be ChatOptions/);
    expect(() => agent.chat(bad as never, { signal: new AbortController().signal })).toThrow(/^reviewer.chat: input must be a string/);
  });
});
