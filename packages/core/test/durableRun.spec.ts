import { concatMap, forkJoin, from, map, of, timer } from 'rxjs';
import { defineAgent, invoke$, MemoryRunStore, namedPlace, observeRun, traceRun, type RunContext, type RunEvent, type RunLease, type RunStore } from '@rxagents/core';
import { type CallCounts, callsNotEndedIn, comparable, countingAgent, cutJournal, drive, journalOf, rootEnd, tree, virtualTime } from './support/durable';

const RUN_ID = 'run-42';

/** Runs `body` uninterrupted, then from every cut of its journal, checking each resume against it. */
async function everyCut(make: (scheduler: ReturnType<typeof virtualTime>, counts: CallCounts) => (run: RunContext) => ReturnType<typeof invoke$>, ordered: boolean): Promise<number> {
  const scheduler = virtualTime();
  const counts: CallCounts = new Map();
  const store = new MemoryRunStore({ scheduler });
  const whole = await drive(scheduler, observeRun('story', 'go', make(scheduler, counts), { store, runId: RUN_ID, scheduler }));
  const journal = await journalOf(store, RUN_ID);
  expect(journal).toEqual(whole.events);
  expect(rootEnd(whole.events)).toMatchObject({ success: true });
  for (let k = 0; k <= journal.length; k++) {
    const resumedScheduler = virtualTime();
    const resumedCounts: CallCounts = new Map();
    const cut = await cutJournal(journal, k, RUN_ID, resumedScheduler);
    const resumed = await drive(resumedScheduler, observeRun('story', 'go', make(resumedScheduler, resumedCounts), { store: cut, runId: RUN_ID, scheduler: resumedScheduler }));
    expect({ k, error: resumed.error }).toEqual({ k, error: undefined });
    expect({ k, output: (rootEnd(resumed.events) as { output?: string }).output }).toEqual({ k, output: (rootEnd(whole.events) as { output?: string }).output });
    if (ordered) expect(comparable(resumed.events)).toEqual(comparable(whole.events));
    expect(tree(resumed.events)).toEqual(tree(whole.events));
    expect({ k, calls: resumedCounts }).toEqual({ k, calls: callsNotEndedIn(journal, k) });
    // The resumed journal is the resumed run's events: the cut, what closed it, and what is new.
    expect(await journalOf(cut, RUN_ID)).toEqual(resumed.events);
  }
  return journal.length;
}

describe('a durable run resumed from every cut of its journal', () => {
  it('a chain of three calls: the same result, the same events in the same order, and each unfinished call made once', async () => {
    const records = await everyCut((scheduler, counts) => {
      const [a, b, c] = ['a', 'b', 'c'].map((id) => countingAgent(id, scheduler, counts));
      return (run) =>
        invoke$(a!, 'go', { run }).pipe(
          concatMap((text) => invoke$(b!, text, { run })),
          concatMap((text) => invoke$(c!, text, { run })),
        );
    }, true);
    expect(records).toBe(14);
  });

  it('parallel calls under one run: the same result and event tree, each unfinished call made once', async () => {
    await everyCut((scheduler, counts) => {
      const a = countingAgent('a', scheduler, counts, 3);
      const b = countingAgent('b', scheduler, counts, 5);
      const c = countingAgent('c', scheduler, counts, 7);
      return (run) => forkJoin([invoke$(a, 'x', { run }), invoke$(b, 'y', { run }), invoke$(c, 'z', { run })]).pipe(map((parts) => parts.join(' + ')));
    }, false);
  });
});

describe('a durable run with nested runs resumed from every cut of its journal', () => {
  it('a stage node holding a composed agent (a nested run inside an agent call) and a plain call, then a last call', async () => {
    await everyCut((scheduler, counts) => {
      const [a, b, c, d] = ['a', 'b', 'c', 'd'].map((id) => countingAgent(id, scheduler, counts, 4));
      const composed = defineAgent('composed', (input, { run }) => {
        counts.set('composed', (counts.get('composed') ?? 0) + 1);
        return traceRun(run, 'inner-pattern', input, (inner) => invoke$(a!, input, { run: inner }).pipe(concatMap((text) => invoke$(b!, text, { run: inner }))));
      });
      return (run) =>
        traceRun(run, 'stage', 'go', (stage) => forkJoin([invoke$(composed, 'x', { run: stage }), invoke$(c!, 'y', { run: stage })]).pipe(map((parts) => parts.join(' | ')))).pipe(
          concatMap((text) => invoke$(d!, text, { run })),
        );
    }, false);
  });
});

describe('place keys', () => {
  it('names the root run, its calls by ordinal and a named child by its escaped name', async () => {
    const scheduler = virtualTime();
    const counts: CallCounts = new Map();
    const a = countingAgent('a', scheduler, counts);
    const store = new MemoryRunStore({ scheduler });
    const body = (run: RunContext) =>
      forkJoin([invoke$(a, '1', { run }), invoke$(a, '2', { run: namedPlace(run, 'review/1') }), invoke$(a, '3', { run: namedPlace(run, 'review/1') }), invoke$(a, '4', { run })]);
    const { events } = await drive(scheduler, observeRun('places', 'go', body, { store, runId: RUN_ID, scheduler }));
    const ids = events.filter((event) => event.type === 'call-start').map((event) => event.callId);
    expect(ids).toEqual(['run/0', 'run/~review%2F1', 'run/~review%2F1:1', 'run/1']);
    expect(events[0]).toMatchObject({ type: 'run-start', callId: 'run', parentCallId: null });
  });

  it('namedPlace without a durable run gives the context back', () => {
    const run: RunContext = { runId: 'r', callId: 'c', parentCallId: null, scheduler: virtualTime(), emit: () => undefined };
    expect(namedPlace(run, 'x')).toBe(run);
    expect(namedPlace(undefined, 'x')).toBeUndefined();
    expect(() => namedPlace(run, '')).toThrow(/name must be a non-empty string/);
  });
});

describe('idempotency keys', () => {
  it('every call of a durable run gets runId:placeKey; a call outside one gets none', async () => {
    const scheduler = virtualTime();
    const keys: (string | undefined)[] = [];
    const agent = defineAgent('payer', (input, { idempotencyKey }) => {
      keys.push(idempotencyKey);
      return timer(1, scheduler).pipe(map(() => `paid ${input}`));
    });
    const store = new MemoryRunStore({ scheduler });
    await drive(scheduler, observeRun('pay', 'go', (run) => invoke$(agent, 'a', { run }).pipe(concatMap(() => invoke$(agent, 'b', { run }))), { store, runId: RUN_ID, scheduler }));
    await drive(scheduler, observeRun('pay', 'go', (run) => invoke$(agent, 'c', { run }), { scheduler }));
    expect(keys).toEqual([`${RUN_ID}:run/0`, `${RUN_ID}:run/1`, undefined]);
  });
});

describe('options', () => {
  it('refuses a store without the store methods and a lease shorter than 3 ms, at once', () => {
    const body = () => of('x');
    expect(() => observeRun('story', 'go', body, { store: {} as unknown as RunStore })).toThrow(/store must be a run store/);
    expect(() => observeRun('story', 'go', body, { store: new MemoryRunStore(), leaseTtlMs: 1 })).toThrow(/leaseTtlMs must be a number of milliseconds from 3/);
    expect(() => observeRun('story', 'go', body, { store: new MemoryRunStore(), leaseTtlMs: 3 })).not.toThrow();
  });

  it('refuses a blank lease owner, or one that is not a string, at once', () => {
    const body = () => of('x');
    expect(() => observeRun('story', 'go', body, { store: new MemoryRunStore(), leaseOwner: ' ' })).toThrow(/leaseOwner must be a non-blank string of at most 200 characters/);
    expect(() => observeRun('story', 'go', body, { store: new MemoryRunStore(), leaseOwner: 7 as never })).toThrow(/leaseOwner/);
    expect(() => observeRun('story', 'go', body, { store: new MemoryRunStore(), leaseOwner: 'registry-a' })).not.toThrow();
  });
});

describe('a slow store', () => {
  it('paces the run while more than 4,096 events wait for it: the next call starts once the store took them', async () => {
    const held: (() => void)[] = [];
    const inner = new MemoryRunStore();
    const store: RunStore = {
      append: (runId: string, events: readonly RunEvent[], lease?: RunLease) =>
        inner.append(runId, events, lease).then(() => new Promise<void>((resolve) => held.push(resolve))),
      read: (runId, fromSeq) => inner.read(runId, fromSeq),
      summary: (runId) => inner.summary(runId),
      list: (options) => inner.list(options),
      acquireLease: (runId, ttlMs) => inner.acquireLease(runId, ttlMs),
      renewLease: (lease, ttlMs) => inner.renewLease(lease, ttlMs),
      releaseLease: (lease) => inner.releaseLease(lease),
      expire: (runId, afterMs) => inner.expire(runId, afterMs),
      delete: (runId) => inner.delete(runId),
    };
    const burst = defineAgent('burst', () => from(Array.from({ length: 5_000 }, () => 'x')));
    let lastCalled = false;
    const last = defineAgent('last', async () => {
      lastCalled = true;
      return 'done';
    });
    const body = (run: RunContext) =>
      invoke$(burst, '1', { run }).pipe(
        concatMap(() => invoke$(burst, '2', { run })),
        concatMap(() => invoke$(last, '3', { run })),
      );
    let ended = false;
    observeRun('burst', 'go', body, { store, runId: RUN_ID }).subscribe({ complete: () => (ended = true) });
    const settle = () => new Promise((resolve) => setImmediate(resolve));
    await settle();
    // The first 5,003 events are with the store, the second burst's 5,002 wait: the last call waits too.
    expect(held).toHaveLength(1);
    expect(lastCalled).toBe(false);
    held.shift()!();
    await settle();
    expect(lastCalled).toBe(true);
    while (!ended) {
      held.shift()?.();
      await settle();
    }
    expect((await journalOf(inner, RUN_ID)).length).toBe(10_009);
  });
});

describe('a run without a store', () => {
  it('keeps random UUIDs as node ids', async () => {
    const scheduler = virtualTime();
    const a = countingAgent('a', scheduler, new Map());
    const { events } = await drive(scheduler, observeRun('story', 'go', (run) => invoke$(a, 'go', { run }), { scheduler }));
    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
    expect(events.length).toBeGreaterThan(0);
    for (const event of events as RunEvent[]) expect(event.callId).toMatch(uuid);
  });
});
