import { catchError, concatMap, defer, map, merge, type Observable, of, take, takeWhile, timer, toArray } from 'rxjs';
import {
  askForInput,
  CallInterruptedError,
  defineAgent,
  emitCustom,
  invoke$,
  MemoryRunStore,
  namedPlace,
  observeRun,
  pendingInterrupts,
  RunDivergenceError,
  serializeError,
  traceRun,
  type RunContext,
  type RunEvent,
  type RunEventOf,
} from '@rxagents/core';
import { type CallCounts, countingAgent, cutJournal, drive, journalOf, rootEnd, virtualTime } from './support/durable';

const RUN_ID = 'drift-1';
type Scheduler = ReturnType<typeof virtualTime>;

/** `a`, then `b` on a's answer, then `c` on b's; `upTo` of them (a body changed to end early). */
function chain(scheduler: Scheduler, counts: CallCounts, upTo = 3) {
  const agents = ['a', 'b', 'c'].slice(0, upTo).map((id) => countingAgent(id, scheduler, counts));
  return (run: RunContext) => agents.reduce((text$, agent) => text$.pipe(concatMap((text) => invoke$(agent, text, { run }))), of('go'));
}

async function run(scheduler: Scheduler, store: MemoryRunStore, body: (run: RunContext) => Observable<unknown>) {
  return drive(scheduler, observeRun('story', 'go', body, { store, runId: RUN_ID, scheduler }));
}

async function wholeChain(): Promise<{ journal: RunEvent[]; output: string }> {
  const scheduler = virtualTime();
  const store = new MemoryRunStore({ scheduler });
  const { events } = await run(scheduler, store, chain(scheduler, new Map()));
  return { journal: await journalOf(store, RUN_ID), output: (rootEnd(events) as RunEventOf<'run-end'>).output as string };
}

const endError = (events: readonly RunEvent[]) => (rootEnd(events) as RunEventOf<'run-end'>).error;

describe('a resumed body that now ends before its journal does', () => {
  const afterEndOf = (journal: RunEvent[], agentId: string) => journal.findIndex((event) => event.type === 'call-end' && event.agentId === agentId) + 1;
  const afterStartOf = (journal: RunEvent[], agentId: string) => journal.findIndex((event) => event.type === 'call-start' && event.agentId === agentId) + 1;

  it.each([
    ['a later call ended', afterEndOf, 'b'],
    ['a later call was in flight', afterStartOf, 'b'],
  ])('%s: the run fails with RunDivergenceError naming that call, journals no end, and the original code then resumes it', async (_, cutAt, agentId) => {
    const { journal, output } = await wholeChain();
    const k = cutAt(journal, agentId);
    const scheduler = virtualTime();
    const store = await cutJournal(journal, k, RUN_ID, scheduler);
    const counts: CallCounts = new Map();
    const shorter = await run(scheduler, store, chain(scheduler, counts, 1));

    expect(endError(shorter.events)).toMatchObject({ name: 'RunDivergenceError', code: 'RUN_DIVERGED' });
    expect(endError(shorter.events)?.message).toBe(`Run "${RUN_ID}" diverged from its journal at "run/1": recorded agent "b", input "a(go)", now the run ended without making this call`);
    expect(counts).toEqual(new Map());
    const after = await journalOf(store, RUN_ID);
    expect(rootEnd(after)).toBeUndefined();
    expect((await store.summary(RUN_ID))?.status).toBe('running');

    const original = await run(scheduler, store, chain(scheduler, counts));
    expect(rootEnd(original.events)).toMatchObject({ success: true, output });
    expect(counts).toEqual(k === afterEndOf(journal, 'b') ? new Map([['c', 1]]) : new Map([['b', 1], ['c', 1]]));
  });

  it('a recorded question the body no longer asks is a divergence naming it', async () => {
    const scheduler = virtualTime();
    const store = new MemoryRunStore({ scheduler });
    // The first process stops once the question is journaled.
    await drive(scheduler, observeRun('ask', 'go', (run) => askForInput(run, 'Name?'), { store, runId: RUN_ID, scheduler }).pipe(takeWhile((event) => event.type !== 'interrupt', true)));
    await new Promise((resolve) => setImmediate(resolve));
    const { events } = await drive(scheduler, observeRun('ask', 'go', (_run: RunContext) => of('Ada'), { store, runId: RUN_ID, scheduler }));
    expect(endError(events)?.message).toMatch(/at "run\/0": recorded an input, asking "Name\?", now the run ended without asking this$/);
    expect(pendingInterrupts(RUN_ID)).toEqual([]);
  });

  it('a recorded nested run the body no longer enters is a divergence naming it', async () => {
    const scheduler = virtualTime();
    const counts: CallCounts = new Map();
    const a = countingAgent('a', scheduler, counts);
    const store = new MemoryRunStore({ scheduler });
    const staged = (run: RunContext) => invoke$(a, 'go', { run }).pipe(concatMap((text) => traceRun(run, 'review', text, (node) => invoke$(a, text, { run: node }))));
    await drive(scheduler, observeRun('story', 'go', staged, { store, runId: RUN_ID, scheduler }));
    const journal = await journalOf(store, RUN_ID);
    const cut = await cutJournal(journal, journal.length - 1, RUN_ID, scheduler);
    const { events } = await drive(scheduler, observeRun('story', 'go', (run) => invoke$(a, 'go', { run }), { store: cut, runId: RUN_ID, scheduler }));
    expect(endError(events)?.message).toMatch(/at "run\/1": recorded a nested run "review", now the run ended without entering this nested run$/);
  });
});

describe('a resumed nested run that now ends before its journal does', () => {
  it('fails the run at its end, before that end is journaled', async () => {
    const build = (scheduler: Scheduler, counts: CallCounts, both: boolean) => {
      const [a, b, c] = ['a', 'b', 'c'].map((id) => countingAgent(id, scheduler, counts));
      const stage = (node: RunContext | undefined) => invoke$(a!, 'go', { run: node }).pipe(concatMap((text) => (both ? invoke$(b!, text, { run: node }) : of(text))));
      // `c` starts once the stage ended (a value it passes on as it goes would start `c` before that).
      return (run: RunContext) => traceRun(run, 'stage', 'go', stage).pipe(toArray(), concatMap(([text]) => invoke$(c!, text!, { run })));
    };
    const scheduler = virtualTime();
    const store = new MemoryRunStore({ scheduler });
    await drive(scheduler, observeRun('story', 'go', build(scheduler, new Map(), true), { store, runId: RUN_ID, scheduler }));
    const journal = await journalOf(store, RUN_ID);
    const k = journal.findIndex((event) => event.type === 'call-end' && event.agentId === 'b') + 1;
    const cut = await cutJournal(journal, k, RUN_ID, scheduler);
    const counts: CallCounts = new Map();
    const { events } = await drive(scheduler, observeRun('story', 'go', build(scheduler, counts, false), { store: cut, runId: RUN_ID, scheduler }));
    expect(endError(events)?.message).toMatch(/at "run\/0\/1": recorded agent "b", input "a\(go\)", now the nested run at "run\/0" ended without making this call$/);
    expect(counts).toEqual(new Map());
    expect(await journalOf(cut, RUN_ID)).toEqual(journal.slice(0, k));
    const original = await drive(scheduler, observeRun('story', 'go', build(scheduler, counts, true), { store: cut, runId: RUN_ID, scheduler }));
    expect(rootEnd(original.events)).toMatchObject({ success: true, output: (rootEnd(journal) as RunEventOf<'run-end'>).output });
    expect(counts).toEqual(new Map([['c', 1]]));
  });
});

describe('what a resumed body need not reach again', () => {
  it('calls under a call that runs again: its new attempt may make fewer of them', async () => {
    // Its first attempt asks inner twice, a later one once (as a model may decide otherwise).
    let attempts = 0;
    const build = (scheduler: Scheduler, counts: CallCounts) => {
      const inner = countingAgent('inner', scheduler, counts);
      const outer = defineAgent('outer', (input, { run }) => {
        const twice = ++attempts === 1;
        return invoke$(inner, input, { run }).pipe(concatMap((text) => (twice ? invoke$(inner, text, { run }) : of(text))));
      });
      return (run: RunContext) => invoke$(outer, 'go', { run });
    };
    const scheduler = virtualTime();
    const store = new MemoryRunStore({ scheduler });
    await drive(scheduler, observeRun('nested', 'go', build(scheduler, new Map()), { store, runId: RUN_ID, scheduler }));
    const journal = await journalOf(store, RUN_ID);
    // Cut while outer's second inner call runs.
    const k = journal.findIndex((event) => event.type === 'call-start' && event.callId === 'run/0/1') + 1;
    const cut = await cutJournal(journal, k, RUN_ID, scheduler);
    const { events } = await drive(scheduler, observeRun('nested', 'go', build(scheduler, new Map()), { store: cut, runId: RUN_ID, scheduler }));
    expect(rootEnd(events)).toMatchObject({ success: true, output: 'inner(go)' });
  });

  it('a branch the recorded run cancelled is reached and cancelled again, and the run ends as it did', async () => {
    const build = (scheduler: Scheduler, counts: CallCounts) => {
      const fast = countingAgent('fast', scheduler, counts, 1);
      const slow = countingAgent('slow', scheduler, counts, 50);
      const last = countingAgent('last', scheduler, counts);
      return (run: RunContext) => merge(invoke$(fast, 'go', { run }), invoke$(slow, 'go', { run })).pipe(take(1), concatMap((text) => invoke$(last, text, { run })));
    };
    const scheduler = virtualTime();
    const store = new MemoryRunStore({ scheduler });
    const whole = await drive(scheduler, observeRun('race', 'go', build(scheduler, new Map()), { store, runId: RUN_ID, scheduler }));
    const journal = await journalOf(store, RUN_ID);
    expect(journal.some((event) => event.type === 'call-error' && event.agentId === 'slow' && event.error.name === 'AbortError')).toBe(true);
    // Cut once the cancellation is journaled (take(1) starts `last` before it cancels `slow`).
    const cut = await cutJournal(journal, journal.findIndex((event) => event.type === 'call-error' && event.agentId === 'slow') + 1, RUN_ID, scheduler);
    const counts: CallCounts = new Map();
    const { events } = await drive(scheduler, observeRun('race', 'go', build(scheduler, counts), { store: cut, runId: RUN_ID, scheduler }));
    expect(rootEnd(events)).toMatchObject({ success: true, output: (rootEnd(whole.events) as RunEventOf<'run-end'>).output });
    expect(counts).toEqual(new Map([['last', 1]]));
  });

  it('a call the run cancelled before it gave anything: a resumed run whose replayed calls take no time may cancel its branch first', async () => {
    // `x` starts 20 ms in, and is cancelled at 50 ms (before its first chunk) when `broken` fails. Its
    // place is named (as a choreography names its interactions'), so the calls after it keep theirs.
    const build = (scheduler: Scheduler, counts: CallCounts) => {
      const broken = defineAgent('broken', () => timer(50, scheduler).pipe(map((): string => { throw new Error('quota'); })));
      const x = countingAgent('x', scheduler, counts, 40);
      const last = countingAgent('last', scheduler, counts);
      return (run: RunContext) =>
        merge(invoke$(broken, 'go', { run }), timer(20, scheduler).pipe(concatMap(() => invoke$(x, 'go', { run: namedPlace(run, 'x') })))).pipe(
          catchError(() => of('recovered')),
          concatMap((text) => invoke$(last, text, { run })),
        );
    };
    const scheduler = virtualTime();
    const store = new MemoryRunStore({ scheduler });
    const whole = await drive(scheduler, observeRun('story', 'go', build(scheduler, new Map()), { store, runId: RUN_ID, scheduler }));
    const journal = await journalOf(store, RUN_ID);
    const k = journal.findIndex((event) => event.type === 'call-error' && event.agentId === 'x') + 1;
    expect(journal[k - 1]).toMatchObject({ callId: 'run/~x', error: { name: 'AbortError' } });
    expect(journal.some((event) => event.type === 'text-delta' && event.callId === 'run/~x')).toBe(false);
    const cut = await cutJournal(journal, k, RUN_ID, scheduler);
    const counts: CallCounts = new Map();
    const { events } = await drive(scheduler, observeRun('story', 'go', build(scheduler, counts), { store: cut, runId: RUN_ID, scheduler }));
    expect(rootEnd(events)).toMatchObject({ success: true, output: (rootEnd(whole.events) as RunEventOf<'run-end'>).output });
    expect(counts).toEqual(new Map([['last', 1]]));
  });
});

describe('a finished run is never extended', () => {
  it('finished by a shorter body, it is resumed by the original code with no live call: its journal, ending with its run-end, then RunDivergenceError', async () => {
    const scheduler = virtualTime();
    const store = new MemoryRunStore({ scheduler });
    await run(scheduler, store, chain(scheduler, new Map(), 1));
    const journal = await journalOf(store, RUN_ID);
    const counts: CallCounts = new Map();
    const { events, error } = await run(scheduler, store, chain(scheduler, counts));

    expect(counts).toEqual(new Map());
    expect(events).toEqual(journal);
    expect(events.at(-1)).toEqual(rootEnd(journal));
    expect(error).toBeInstanceOf(RunDivergenceError);
    expect(error).toMatchObject({ placeKey: 'run/1', recorded: 'nothing more: the run had ended', live: 'agent "b", input "a(go)"' });
    expect(await journalOf(store, RUN_ID)).toEqual(journal);
  });

  it('the issue end to end: a shorter body cannot finish a cut run, so the original code later finishes it once, with one root run-end', async () => {
    const { journal, output } = await wholeChain();
    const scheduler = virtualTime();
    const k = journal.findIndex((event) => event.type === 'call-start' && event.agentId === 'c') + 1;
    const store = await cutJournal(journal, k, RUN_ID, scheduler);
    await run(scheduler, store, chain(scheduler, new Map(), 2));
    const counts: CallCounts = new Map();
    const { events } = await run(scheduler, store, chain(scheduler, counts));
    expect(counts).toEqual(new Map([['c', 1]]));
    expect(rootEnd(events)).toMatchObject({ success: true, output });
    expect(events.at(-1)).toEqual(rootEnd(events));
    const after = await journalOf(store, RUN_ID);
    expect(after.filter((event) => event.type === 'run-end' && event.parentCallId === null)).toHaveLength(1);
    expect((await store.summary(RUN_ID))?.status).toBe('succeeded');
  });

  type Extra = (run: RunContext, scheduler: Scheduler, counts: CallCounts) => Observable<unknown>;
  it.each<[string, Extra, string, string]>([
    ['an agent call', (run: RunContext, scheduler: Scheduler, counts: CallCounts) => invoke$(countingAgent('extra', scheduler, counts), 'more', { run }), 'run/3', 'agent "extra", input "more"'],
    ['a question', (run: RunContext) => askForInput(run, 'More?'), 'run/3', 'an input, asking "More?"'],
    ['a nested run', (run: RunContext) => traceRun(run, 'epilogue', 'more', () => of('done')), 'run/3', 'a nested run "epilogue"'],
    ['an event', (run: RunContext) => defer(() => of(emitCustom(run, 'note', 1))), 'run', 'a "custom" event'],
  ])('resumed by code that adds %s after its last call: no agent is called and nobody is asked; the journal, then RunDivergenceError', async (_, extra, placeKey, live) => {
    const { journal } = await wholeChain();
    const scheduler = virtualTime();
    const store = await cutJournal(journal, journal.length, RUN_ID, scheduler);
    const counts: CallCounts = new Map();
    const longer = (run: RunContext) => chain(scheduler, counts)(run).pipe(concatMap((text) => extra(run, scheduler, counts).pipe(toArray(), map(() => text))));
    const { events, error } = await run(scheduler, store, longer);

    expect(counts).toEqual(new Map());
    expect(pendingInterrupts(RUN_ID)).toEqual([]);
    expect(events).toEqual(journal);
    expect(error).toBeInstanceOf(RunDivergenceError);
    expect(error).toMatchObject({ placeKey, live });
    expect(await journalOf(store, RUN_ID)).toEqual(journal);
  });

  it('finished while a call was cut off (as a shorter body could finish it before): the original code does not run that call again', async () => {
    const { journal } = await wholeChain();
    const k = journal.findIndex((event) => event.type === 'call-start' && event.agentId === 'b') + 1;
    const start = journal[k - 1] as RunEventOf<'call-start'>;
    const at = start.at + 1;
    const error = serializeError(new CallInterruptedError(RUN_ID, start.callId, 'b'));
    const finished: RunEvent[] = [
      ...journal.slice(0, k),
      { type: 'call-error', runId: RUN_ID, callId: start.callId, parentCallId: 'run', at, agentId: 'b', error, durationMs: 1 },
      { type: 'run-end', runId: RUN_ID, callId: 'run', parentCallId: null, at, success: true, output: 'a(go)', durationMs: at },
    ];
    const scheduler = virtualTime();
    const store = await cutJournal(finished, finished.length, RUN_ID, scheduler);
    const counts: CallCounts = new Map();
    const { events, error: failure } = await run(scheduler, store, chain(scheduler, counts));
    expect(counts).toEqual(new Map());
    expect(events).toEqual(finished);
    expect(failure).toMatchObject({ placeKey: 'run/1', recorded: 'agent "b", input "a(go)", never finished' });
  });

  it('resumed by the same code: its journal, ending with its run-end, and nothing else', async () => {
    const { journal } = await wholeChain();
    const scheduler = virtualTime();
    const store = await cutJournal(journal, journal.length, RUN_ID, scheduler);
    const counts: CallCounts = new Map();
    const { events, error } = await run(scheduler, store, chain(scheduler, counts));
    expect(error).toBeUndefined();
    expect(events).toEqual(journal);
    expect(counts).toEqual(new Map());
  });
});
