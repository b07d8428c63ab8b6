import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { filter, firstValueFrom, lastValueFrom, map, switchMap, toArray } from 'rxjs';
import { z } from 'zod';
import {
  askForApproval,
  askForInput,
  ConfigError,
  defineAgent,
  InterruptAnswerError,
  InterruptNotFoundError,
  invoke$,
  observeRun,
  pendingInterrupts,
  type RunEvent,
  type RunEventOf,
} from '@rxagents/core';
import { createRunRegistry, fromEventStream, type RunRegistry } from '@rxagents/web';
import { bodyOf, nextInterrupt, post } from './helpers/answers';

const quiet = { heartbeatMs: Infinity, stallTimeoutMs: Infinity } as const;

async function frames(response: Response): Promise<EventSourceMessage[]> {
  const messages: EventSourceMessage[] = [];
  createParser({ onEvent: (message) => messages.push(message) }).feed(await response.text());
  return messages;
}

/** A run body asking for a number of days, then answering with a plan. */
const planner = (input: string) => (run: Parameters<typeof askForInput>[0]) =>
  askForInput(run, `How many days in ${input}?`, { schema: z.number().int().min(1) }).pipe(map((days) => `${days} days in ${input}`));

describe('a run registry takes answers to its runs’ interrupts', () => {
  const registries: RunRegistry[] = [];
  const track = (registry: RunRegistry): RunRegistry => (registries.push(registry), registry);
  afterEach(() => registries.splice(0).forEach((registry) => registry.close()));

  const startPlanner = (registry: RunRegistry, input = 'Lisbon') => {
    const { runId } = registry.start('trip', input, planner(input));
    const ended = lastValueFrom(fromEventStream(`http://x/runs/${runId}`, { fetch: async (url) => registry.response(runId, new Request(url as string)) }).pipe(toArray()));
    // A run the test leaves unanswered is cut off when its registry closes.
    ended.catch(() => undefined);
    return { runId, ended };
  };

  it('handleAnswer: 204 takes the answer and the run goes on with it', async () => {
    const registry = track(createRunRegistry(quiet));
    const { runId, ended } = startPlanner(registry);
    const asked = await nextInterrupt(runId);
    const response = await registry.handleAnswer(runId, post({ interruptId: asked.interruptId, answer: 3 }));
    expect(response.status).toBe(204);
    const events = await ended;
    expect(events.at(-1)).toMatchObject({ type: 'run-end', success: true, output: '3 days in Lisbon' });
    expect(events.find((event) => event.type === 'interrupt-end')).toMatchObject({ interruptId: asked.interruptId, answered: true, answer: 3 });
  });

  it('422 names each broken rule of the question’s schema, without the value, and the question keeps waiting', async () => {
    const registry = track(createRunRegistry(quiet));
    const { runId, ended } = startPlanner(registry);
    const { interruptId } = await nextInterrupt(runId);
    const bad = await registry.handleAnswer(runId, post({ interruptId, answer: 'forty<script>' }));
    expect(bad.status).toBe(422);
    const text = await bad.text();
    expect(text).not.toContain('forty');
    expect(JSON.parse(text)).toEqual({
      error: { code: 'INTERRUPT_ANSWER_INVALID', message: expect.any(String), issues: [{ path: '', rule: expect.stringMatching(/number/) }] },
    });
    expect(pendingInterrupts(runId).map((event) => event.interruptId)).toEqual([interruptId]);
    await expect(registry.answer(runId, interruptId, 0)).rejects.toBeInstanceOf(InterruptAnswerError);
    await registry.answer(runId, interruptId, 2);
    expect((await ended).at(-1)).toMatchObject({ output: '2 days in Lisbon' });
  });

  it('400 for a body that is not { interruptId, answer }: names the field and the rule, never what was sent', async () => {
    const registry = track(createRunRegistry(quiet));
    const { runId } = startPlanner(registry);
    const { interruptId } = await nextInterrupt(runId);
    const cases: [unknown, unknown][] = [
      ['{not json <script>', undefined],
      [[1, 2], [{ path: '', rule: 'must be an object' }]],
      [{ interruptId }, [{ path: 'answer', rule: 'must be given (any JSON value)' }]],
      [{ interruptId: 42, answer: 1 }, [{ path: 'interruptId', rule: 'must be a string' }]],
      [{ interruptId: '', answer: 1 }, [{ path: 'interruptId', rule: 'must be a non-empty string' }]],
      [{ interruptId: 'x'.repeat(300), answer: 1 }, [{ path: 'interruptId', rule: 'must be at most 256 characters' }]],
      [{ interruptId, answer: 1, '<script>': true }, [{ path: '', rule: 'must have no fields but interruptId and answer' }]],
    ];
    for (const [body, issues] of cases) {
      const response = await registry.handleAnswer(runId, post(body));
      expect(response.status).toBe(400);
      const text = await response.text();
      expect(text).not.toContain('script');
      expect(text).not.toContain('xxxx');
      expect((JSON.parse(text) as { error: { issues?: unknown } }).error.issues).toEqual(issues);
    }
    expect(pendingInterrupts(runId)).toHaveLength(1);
  });

  it('404 the same for an unknown run, an unknown interrupt, an answered one and another run’s: an answer learns nothing', async () => {
    const registry = track(createRunRegistry(quiet));
    const alice = startPlanner(registry, 'Lisbon');
    const bob = startPlanner(registry, 'Porto');
    const aliceAsks = await nextInterrupt(alice.runId);
    const bobAsks = await nextInterrupt(bob.runId);
    // Bob holds his run's id (his page's URL) and learns Alice's interrupt id: that is not enough.
    const crossRun = await registry.handleAnswer(bob.runId, post({ interruptId: aliceAsks.interruptId, answer: 9 }));
    const unknownInterrupt = await registry.handleAnswer(bob.runId, post({ interruptId: '3b241101-e2bb-4255-8caf-4136c566a962', answer: 9 }));
    const unknownRun = await registry.handleAnswer('f47ac10b-58cc-4372-a567-0e02b2c3d479', post({ interruptId: aliceAsks.interruptId, answer: 9 }));
    const bodies = await Promise.all([crossRun, unknownInterrupt, unknownRun].map((response) => response.text()));
    expect([crossRun.status, unknownInterrupt.status, unknownRun.status]).toEqual([404, 404, 404]);
    expect(new Set(bodies).size).toBe(1);
    expect(bodies[0]).not.toContain(aliceAsks.interruptId);
    await expect(registry.answer(bob.runId, aliceAsks.interruptId, 9)).rejects.toBeInstanceOf(InterruptNotFoundError);
    expect(pendingInterrupts(alice.runId)).toHaveLength(1);

    // Another registry of the same process does not answer this one's runs either.
    const other = track(createRunRegistry(quiet));
    await expect(other.answer(alice.runId, aliceAsks.interruptId, 9)).rejects.toBeInstanceOf(InterruptNotFoundError);

    expect((await registry.handleAnswer(alice.runId, post({ interruptId: aliceAsks.interruptId, answer: 4 }))).status).toBe(204);
    const again = await registry.handleAnswer(alice.runId, post({ interruptId: aliceAsks.interruptId, answer: 5 }));
    expect(again.status).toBe(404);
    expect(await again.text()).toBe(bodies[0]);
    expect((await alice.ended).at(-1)).toMatchObject({ output: '4 days in Lisbon' });
    await registry.answer(bob.runId, bobAsks.interruptId, 1);
    expect((await bob.ended).at(-1)).toMatchObject({ output: '1 days in Porto' });
  });

  it('405 for another method, 413 past maxAnswerBytes (reading stops there), a ConfigError for what is not a Request', async () => {
    const registry = track(createRunRegistry({ ...quiet, maxAnswerBytes: 100 }));
    const { runId } = startPlanner(registry);
    const { interruptId } = await nextInterrupt(runId);
    const get = await registry.handleAnswer(runId, post(undefined, 'GET'));
    expect([get.status, get.headers.get('allow')]).toEqual([405, 'POST']);
    expect((await registry.handleAnswer(runId, post({ interruptId, answer: 'x'.repeat(200) }))).status).toBe(413);
    await expect(registry.handleAnswer(runId, {} as never)).rejects.toThrow(/^RunRegistry.handleAnswer: request must be a Request/);
    expect(() => createRunRegistry({ maxAnswerBytes: 0 })).toThrow(ConfigError);
    expect(() => createRunRegistry({ reopenTimeoutMs: -1 })).toThrow(/reopenTimeoutMs/);
    expect(pendingInterrupts(runId)).toHaveLength(1);
  });

  it('answers a run given as events under the registry’s id, though its events carry their own run id', async () => {
    const registry = track(createRunRegistry(quiet));
    const approver = defineAgent('cashier', (input, { run }) =>
      askForApproval(run!, 'refund', { customer: input }).pipe(map((decision) => (decision.approved ? 'refunded' : 'refused'))),
    );
    const events$ = observeRun('refund', 'Ada', (run) => invoke$(approver, 'Ada', { run }), { runId: 'events-own-id' });
    const { runId } = registry.start(events$);
    const asked = await nextInterrupt('events-own-id');
    await expect(registry.answer('events-own-id', asked.interruptId, { approved: true })).rejects.toBeInstanceOf(InterruptNotFoundError);
    expect((await registry.handleAnswer(runId, post({ interruptId: asked.interruptId, answer: { approved: true } }))).status).toBe(204);
    const events = (await frames(registry.response(runId, new Request('http://x')))).map((message) => JSON.parse(message.data) as RunEvent);
    expect(events.at(-1)).toMatchObject({ type: 'run-end', output: 'refunded' });
  });

  it('a viewer that joins late reads the open interrupt frame, through fromEventStream', async () => {
    const registry = track(createRunRegistry(quiet));
    const writer = defineAgent('writer', async () => 'a draft');
    const { runId } = registry.start('review', 'go', (run) =>
      invoke$(writer, 'go', { run }).pipe(switchMap((draft) => askForApproval(run, 'publish', { draft }, { question: 'Publish it?' }))),
    );
    await nextInterrupt(runId);
    const asked = await firstValueFrom(
      fromEventStream(`http://x/runs/${runId}`, { fetch: async (url) => registry.response(runId, new Request(url as string)) }).pipe(
        filter((event): event is RunEventOf<'interrupt'> => event.type === 'interrupt'),
      ),
    );
    expect(asked).toMatchObject({ runId, kind: 'approval', question: 'Publish it?', action: 'publish', args: { draft: 'a draft' }, schema: expect.objectContaining({ type: 'object' }) });
    expect((await registry.handleAnswer(runId, post({ interruptId: asked.interruptId, answer: { approved: false, reason: 'not yet' } }))).status).toBe(204);
  });

  it('an interrupt-end’s error reaches a viewer as exposeError makes it (redacted by default)', async () => {
    const registry = track(createRunRegistry(quiet));
    const { runId } = startPlanner(registry);
    const { interruptId } = await nextInterrupt(runId);
    registry.cancel(runId);
    const events = (await frames(registry.response(runId, new Request('http://x')))).map((message) => JSON.parse(message.data) as RunEvent);
    const end = events.find((event): event is RunEventOf<'interrupt-end'> => event.type === 'interrupt-end');
    expect(end).toMatchObject({ interruptId, answered: false, error: { name: 'AbortError', message: 'The operation was cancelled' } });
    expect(JSON.stringify(events)).not.toContain('before it was answered');
    await expect(registry.answer(runId, interruptId, 3)).rejects.toBeInstanceOf(InterruptNotFoundError);
  });

  it('pending lists a run’s open interrupts for a viewer that joins late, and nothing of other runs', async () => {
    const registry = track(createRunRegistry(quiet));
    const alice = startPlanner(registry, 'Lisbon');
    const bob = startPlanner(registry, 'Porto');
    const asked = await nextInterrupt(alice.runId);
    await nextInterrupt(bob.runId);
    expect(registry.pending(alice.runId)).toEqual([asked]);
    expect(registry.pending('f47ac10b-58cc-4372-a567-0e02b2c3d479')).toEqual([]);
    await registry.answer(alice.runId, asked.interruptId, 2);
    expect(registry.pending(alice.runId)).toEqual([]);
    expect(registry.pending(bob.runId)).toHaveLength(1);
  });

  it('answer rejects, never throws, for ids that are not strings', async () => {
    const registry = track(createRunRegistry(quiet));
    const answered = registry.answer(42 as never, null as never, 1);
    await expect(answered).rejects.toBeInstanceOf(InterruptNotFoundError);
    expect((await registry.handleAnswer(undefined as never, post({ interruptId: 'x', answer: 1 }))).status).toBe(404);
  });
});
