import { forkJoin, lastValueFrom, map, type Observable, Subject, toArray } from 'rxjs';
import { z } from 'zod';
import {
  answerInterrupt,
  askForApproval,
  askForInput,
  ConfigError,
  defineAgent,
  InterruptAnswerError,
  InterruptNotFoundError,
  invoke$,
  MemoryRunStore,
  observeRun,
  pendingInterrupts,
  pendingInterrupts$,
  reduceRunView,
  emptyRunView,
  RunEventSchema,
  type RunEvent,
  type RunEventOf,
} from '../src';
import { drive, journalOf, rootEnd, virtualTime } from './support/durable';

const interruptsOf = (events: readonly RunEvent[]): RunEventOf<'interrupt'>[] => events.filter((event): event is RunEventOf<'interrupt'> => event.type === 'interrupt');

/** Subscribes and collects the events as they come; `done` settles when the run completes. */
function watch(events$: Observable<RunEvent>): { events: RunEvent[]; done: Promise<void>; stop: () => void; opened: Subject<RunEventOf<'interrupt'>> } {
  const events: RunEvent[] = [];
  const opened = new Subject<RunEventOf<'interrupt'>>();
  let stop = (): void => undefined;
  const done = new Promise<void>((resolve, reject) => {
    const subscription = events$.subscribe({
      next: (event) => {
        events.push(event);
        if (event.type === 'interrupt') opened.next(event);
      },
      error: reject,
      complete: resolve,
    });
    stop = () => subscription.unsubscribe();
  });
  return { events, done, stop, opened };
}

const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('askForInput', () => {
  it('says an interrupt with the question and the JSON Schema, waits, and goes on with the parsed answer', async () => {
    const planner = defineAgent('planner', async (input, { run }) => {
      const days = await lastValueFrom(askForInput(run!, `How many days in ${input}?`, { schema: z.number().int().min(1) }));
      return `${days} days in ${input}`;
    });
    const run = watch(observeRun('trip', 'Lisbon', (run) => invoke$(planner, 'Lisbon', { run })));
    await settle();
    const [asked] = interruptsOf(run.events);
    expect(asked).toMatchObject({ kind: 'input', question: 'How many days in Lisbon?', schema: { type: 'integer', minimum: 1 } });
    expect(asked!.interruptId).toMatch(/^[0-9a-f-]{36}$/);
    expect(RunEventSchema.safeParse(asked).success).toBe(true);
    expect(pendingInterrupts(asked!.runId)).toEqual([asked]);
    answerInterrupt(asked!.runId, asked!.interruptId, 3);
    await run.done;
    expect(rootEnd(run.events)).toMatchObject({ success: true, output: '3 days in Lisbon' });
    const end = run.events.find((event) => event.type === 'interrupt-end');
    expect(end).toMatchObject({ interruptId: asked!.interruptId, answered: true, answer: 3, callId: asked!.callId });
    expect(pendingInterrupts(asked!.runId)).toEqual([]);
    const view = run.events.reduce(reduceRunView, emptyRunView);
    expect(view.nodes.find((node) => node.kind === 'interrupt')).toMatchObject({ status: 'completed', answer: 3, name: 'input' });
  });

  it('takes an answer given at once by the reader of its interrupt event', async () => {
    const answered = await lastValueFrom(
      observeRun('ask', 'go', (run) => askForInput(run, 'Now?')).pipe(
        map((event) => {
          if (event.type === 'interrupt') answerInterrupt(event.runId, event.interruptId, 'now');
          return event;
        }),
        toArray(),
      ),
    );
    expect(answered.map((event) => event.type)).toEqual(['run-start', 'interrupt', 'interrupt-end', 'run-end']);
    expect(rootEnd(answered)).toMatchObject({ success: true, output: 'now' });
  });

  it('refuses a bad answer to the one who answered, and keeps waiting', async () => {
    const run = watch(observeRun('ask', 'go', (run) => askForInput(run, 'Your age?', { schema: z.number().int() })));
    await settle();
    const [asked] = interruptsOf(run.events);
    let refused: unknown;
    try {
      answerInterrupt(asked!.runId, asked!.interruptId, 'forty');
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(InterruptAnswerError);
    expect((refused as InterruptAnswerError).issues[0]).toMatchObject({ path: '' });
    expect(() => answerInterrupt(asked!.runId, asked!.interruptId, () => 1)).toThrow(InterruptAnswerError);
    expect(pendingInterrupts(asked!.runId)).toHaveLength(1);
    answerInterrupt(asked!.runId, asked!.interruptId, 40);
    await run.done;
    expect(rootEnd(run.events)).toMatchObject({ success: true });
  });

  it('refuses an answer naming another run, an unknown id, or an interrupt already answered', async () => {
    const run = watch(observeRun('ask', 'go', (run) => askForInput(run, 'Name?')));
    await settle();
    const [asked] = interruptsOf(run.events);
    expect(() => answerInterrupt('another-run', asked!.interruptId, 'Ada')).toThrow(InterruptNotFoundError);
    expect(() => answerInterrupt(asked!.runId, 'nope', 'Ada')).toThrow(InterruptNotFoundError);
    answerInterrupt(asked!.runId, asked!.interruptId, 'Ada');
    expect(() => answerInterrupt(asked!.runId, asked!.interruptId, 'Ada')).toThrow(InterruptNotFoundError);
    await run.done;
  });

  it('holds several open at once (a fan-out asking three people), each answered on its own', async () => {
    const run = watch(observeRun('poll', 'go', (run) => forkJoin(['ann', 'bob', 'cy'].map((who) => askForInput(run, `${who}?`))).pipe(map((answers) => answers.join(',')))));
    await settle();
    const asked = interruptsOf(run.events);
    expect(asked).toHaveLength(3);
    expect(new Set(asked.map((each) => each.interruptId)).size).toBe(3);
    const lists: number[] = [];
    const watching = pendingInterrupts$(asked[0]!.runId).subscribe((open) => lists.push(open.length));
    answerInterrupt(asked[1]!.runId, asked[1]!.interruptId, 'B');
    answerInterrupt(asked[2]!.runId, asked[2]!.interruptId, 'C');
    answerInterrupt(asked[0]!.runId, asked[0]!.interruptId, 'A');
    await run.done;
    watching.unsubscribe();
    expect(lists).toEqual([3, 2, 1, 0]);
    expect(rootEnd(run.events)).toMatchObject({ output: 'A,B,C' });
  });

  it('closes the interrupt when the run is cancelled: a late answer is not found', async () => {
    const run = watch(observeRun('ask', 'go', (run) => askForInput(run, 'Name?')));
    await settle();
    const [asked] = interruptsOf(run.events);
    run.stop();
    expect(pendingInterrupts(asked!.runId)).toEqual([]);
    expect(() => answerInterrupt(asked!.runId, asked!.interruptId, 'Ada')).toThrow(InterruptNotFoundError);
  });

  it('times out on the run scheduler with InterruptTimeoutError', () => {
    const scheduler = virtualTime();
    scheduler.run(({ expectObservable }) => {
      const events$ = observeRun('ask', 'go', (run) => askForInput(run, 'Name?', { timeout: 100 }), { scheduler, runId: 'r' });
      expectObservable(events$.pipe(map((event) => (event.type === 'interrupt-end' ? `${event.type}:${event.error?.code}` : event.type)))).toBe('(ab) 96ms (cd|)', {
        a: 'run-start',
        b: 'interrupt',
        c: 'interrupt-end:INTERRUPT_TIMEOUT',
        d: 'run-end',
      });
    });
  });

  it('refuses a context above the root, a non-string question and a bad option with ConfigError', () => {
    const root = { runId: 'r', callId: null, parentCallId: null, scheduler: virtualTime(), emit: () => undefined };
    expect(() => askForInput(root, 'q')).toThrow(ConfigError);
    expect(() => askForInput(undefined, 'q')).toThrow(/outside a run nobody sees the question/);
    expect(() => askForApproval(undefined, 'refund', {})).toThrow(ConfigError);
    const node = { ...root, callId: 'n' };
    expect(() => askForInput(node, 42 as unknown as string)).toThrow(/question must be a string/);
    expect(() => askForInput(node, 'q', { timeout: -1 })).toThrow(/timeout/);
    expect(() => askForInput(node, 'q', { schema: 'string' as unknown as z.ZodString })).toThrow(/schema must be a zod schema/);
  });
});

describe('askForApproval', () => {
  it('asks for the action with its arguments and gives the decision', async () => {
    const run = watch(observeRun('refund', 'go', (run) => askForApproval(run, 'refund', { amount: 120 })));
    await settle();
    const [asked] = interruptsOf(run.events);
    expect(asked).toMatchObject({ kind: 'approval', action: 'refund', args: { amount: 120 }, question: 'Allow refund?' });
    expect(() => answerInterrupt(asked!.runId, asked!.interruptId, { approved: 'yes' })).toThrow(InterruptAnswerError);
    answerInterrupt(asked!.runId, asked!.interruptId, { approved: false, reason: 'too much' });
    await run.done;
  });

  it("turns a timeout into a refusal with onTimeout: 'refuse'", () => {
    const scheduler = virtualTime();
    scheduler.run(({ expectObservable }) => {
      const decisions$ = observeRun('refund', 'go', (run) => askForApproval(run, 'refund', {}, { timeout: 50, onTimeout: 'refuse' }).pipe(map((decision) => JSON.stringify(decision))), { scheduler, runId: 'r' });
      expectObservable(decisions$.pipe(map((event) => (event.type === 'run-end' ? event.output : event.type)))).toBe('(ab) 46ms (cd|)', {
        a: 'run-start',
        b: 'interrupt',
        c: 'interrupt-end',
        d: '{"approved":false,"reason":"Not answered in time"}',
      });
    });
  });
});

describe('interrupts in a durable run', () => {
  it('survive the process: resumed, the same question is open under the same id, and the answer finishes the run', async () => {
    const scheduler = virtualTime();
    const store = new MemoryRunStore({ scheduler });
    let calls = 0;
    const cashier = defineAgent('cashier', async (input, { run }) => {
      calls++;
      const decision = await lastValueFrom(askForApproval(run!, 'refund', { customer: input }));
      return decision.approved ? 'refunded' : 'refused';
    });
    const start = () => observeRun('refund', 'Ada', (run) => invoke$(cashier, 'Ada', { run }), { store, runId: 'refund-1', scheduler });
    const first = watch(start());
    for (let i = 0; i < 5; i++) await settle();
    const [asked] = interruptsOf(first.events);
    first.stop(); // the process stops while the question is open
    for (let i = 0; i < 5; i++) await settle();
    expect(interruptsOf(await journalOf(store, 'refund-1'))).toEqual([asked]);

    const second = watch(start());
    for (let i = 0; i < 5; i++) await settle();
    const reopened = pendingInterrupts('refund-1');
    expect(reopened).toHaveLength(1);
    expect(reopened[0]).toMatchObject({ interruptId: asked!.interruptId, action: 'refund', args: { customer: 'Ada' } });
    answerInterrupt('refund-1', asked!.interruptId, { approved: true });
    const { events } = await drive(scheduler, new (await import('rxjs')).Observable<RunEvent>((subscriber) => {
      second.done.then(() => subscriber.complete(), (error: unknown) => subscriber.error(error));
    }));
    expect(events).toEqual([]);
    expect(rootEnd(second.events)).toMatchObject({ success: true, output: 'refunded' });
    expect(calls).toBe(2);
    const journal = await journalOf(store, 'refund-1');
    expect(journal.filter((event) => event.type === 'interrupt-end').map((event) => (event as RunEventOf<'interrupt-end'>).error?.code ?? 'answered')).toEqual(['CALL_INTERRUPTED', 'answered']);

    // Resumed once more, the finished run asks nobody: the answer comes from the journal.
    const third = await drive(scheduler, start());
    expect(pendingInterrupts('refund-1')).toEqual([]);
    expect(rootEnd(third.events)).toMatchObject({ success: true, output: 'refunded' });
  });

  it('a question asked by the run body itself stays open across a restart and is not said twice', async () => {
    const scheduler = virtualTime();
    const store = new MemoryRunStore({ scheduler });
    const start = () => observeRun('ask', 'go', (run) => askForInput(run, 'Name?'), { store, runId: 'ask-1', scheduler });
    const first = watch(start());
    for (let i = 0; i < 5; i++) await settle();
    const [asked] = interruptsOf(first.events);
    first.stop();
    for (let i = 0; i < 5; i++) await settle();
    const second = watch(start());
    for (let i = 0; i < 5; i++) await settle();
    expect(interruptsOf(second.events)).toEqual([asked]);
    answerInterrupt('ask-1', asked!.interruptId, 'Ada');
    await second.done;
    expect(rootEnd(second.events)).toMatchObject({ success: true, output: 'Ada' });
    const journal = await journalOf(store, 'ask-1');
    expect(interruptsOf(journal)).toHaveLength(1);
    expect(journal.map((event) => event.type)).toEqual(['run-start', 'interrupt', 'interrupt-end', 'run-end']);
    expect(await lastValueFrom(start().pipe(toArray()))).toEqual(journal);
  });
});
