import { catchError, concatMap, EMPTY, of, take, takeWhile, expand, last, map, merge, range, reduce, timer, toArray } from 'rxjs';
import {
  AgentError,
  CallInterruptedError,
  CoordinationError,
  defineAgent,
  emitCustom,
  emitUsage,
  invoke$,
  MemoryRunStore,
  observeRun,
  RunDivergenceError,
  RunLeasedError,
  RunLeaseLostError,
  RunStoreError,
  traceRun,
  type RunContext,
  type RunEvent,
  type RunEventOf,
  type RunLease,
  type RunStore,
} from '@rxagents/core';
import { type CallCounts, countingAgent, cutJournal, drive, journalOf, rootEnd, virtualTime } from './support/durable';

const RUN_ID = 'run-7';

function chain(scheduler: ReturnType<typeof virtualTime>, counts: CallCounts, first = 'a', input = 'go') {
  const agents = new Map([first, 'b', 'c'].map((id) => [id, countingAgent(id, scheduler, counts)]));
  return (run: RunContext) =>
    invoke$(agents.get(first)!, input, { run }).pipe(
      concatMap((text) => invoke$(agents.get('b')!, text, { run })),
      concatMap((text) => invoke$(agents.get('c')!, text, { run })),
    );
}

async function chainJournal(): Promise<RunEvent[]> {
  const scheduler = virtualTime();
  const store = new MemoryRunStore({ scheduler });
  await drive(scheduler, observeRun('story', 'go', chain(scheduler, new Map()), { store, runId: RUN_ID, scheduler }));
  return journalOf(store, RUN_ID);
}

/** The number of records up to and including the first `call-end` of `agentId`. */
const afterEndOf = (journal: RunEvent[], agentId: string): number => journal.findIndex((event) => event.type === 'call-end' && event.agentId === agentId) + 1;

describe('resuming a nested call', () => {
  it('replays an inner call that ended and runs the outer one again as attempt 2, with the same idempotency key', async () => {
    const build = (scheduler: ReturnType<typeof virtualTime>, counts: CallCounts, keys: (string | undefined)[]) => {
      const inner = countingAgent('inner', scheduler, counts);
      const outer = defineAgent('outer', (input, { run, idempotencyKey }) => {
        counts.set('outer', (counts.get('outer') ?? 0) + 1);
        keys.push(idempotencyKey);
        return invoke$(inner, input, { run }).pipe(concatMap((text) => timer(10, scheduler).pipe(map(() => `outer[${text}]`))));
      });
      return (run: RunContext) => invoke$(outer, 'go', { run });
    };
    const scheduler = virtualTime();
    const store = new MemoryRunStore({ scheduler });
    const firstKeys: (string | undefined)[] = [];
    const whole = await drive(scheduler, observeRun('nested', 'go', build(scheduler, new Map(), firstKeys), { store, runId: RUN_ID, scheduler }));
    const journal = await journalOf(store, RUN_ID);

    const resumedScheduler = virtualTime();
    const cut = await cutJournal(journal, afterEndOf(journal, 'inner'), RUN_ID, resumedScheduler);
    const counts: CallCounts = new Map();
    const keys: (string | undefined)[] = [];
    const resumed = await drive(resumedScheduler, observeRun('nested', 'go', build(resumedScheduler, counts, keys), { store: cut, runId: RUN_ID, scheduler: resumedScheduler }));

    expect(rootEnd(resumed.events)).toMatchObject({ success: true, output: (rootEnd(whole.events) as { output: string }).output });
    expect(counts).toEqual(new Map([['outer', 1]]));
    expect(keys).toEqual(firstKeys);
    expect(keys).toEqual([`${RUN_ID}:run/0`]);
    const interrupted = resumed.events.find((event) => event.type === 'call-error');
    expect(interrupted).toMatchObject({ callId: 'run/0', agentId: 'outer', error: { name: 'CallInterruptedError', code: 'CALL_INTERRUPTED', retryable: true } });
    const starts = resumed.events.filter((event) => event.type === 'call-start').map((event) => event.callId);
    // The replayed inner call is said again under attempt 2 (its agent is not called), so that attempt's tree is whole.
    expect(starts).toEqual(['run/0', 'run/0/0', 'run/0#2', 'run/0#2/0']);
  });
});

describe('resuming what ended', () => {
  it('a run whose root ended re-runs its body from the journal alone: the same events, no call, nothing journaled', async () => {
    const journal = await chainJournal();
    const scheduler = virtualTime();
    const store = await cutJournal(journal, journal.length, RUN_ID, scheduler);
    const counts: CallCounts = new Map();
    const resumed = await drive(scheduler, observeRun('story', 'go', chain(scheduler, counts), { store, runId: RUN_ID, scheduler }));
    expect(resumed.events).toEqual(journal);
    expect(counts).toEqual(new Map());
    expect(await journalOf(store, RUN_ID)).toEqual(journal);
  });

  it('a call that failed is replayed as the same failure, so the code that handled it does the same again', async () => {
    const build = (scheduler: ReturnType<typeof virtualTime>, counts: CallCounts) => {
      const broken = defineAgent('broken', () => {
        counts.set('broken', (counts.get('broken') ?? 0) + 1);
        return timer(3, scheduler).pipe(map(() => {
          throw new AgentError('broken', new Error('quota exceeded'), { retryable: true });
        }));
      });
      const b = countingAgent('b', scheduler, counts);
      return (run: RunContext) =>
        invoke$(broken, 'go', { run }).pipe(
          catchError((error: AgentError) => of(`${error.name}/${error.code}/${error.retryable}/${error.message}/${error instanceof AgentError}`)),
          concatMap((text) => invoke$(b, text, { run })),
        );
    };
    const scheduler = virtualTime();
    const store = new MemoryRunStore({ scheduler });
    const whole = await drive(scheduler, observeRun('story', 'go', build(scheduler, new Map()), { store, runId: RUN_ID, scheduler }));
    const journal = await journalOf(store, RUN_ID);
    const resumedScheduler = virtualTime();
    const k = journal.findIndex((event) => event.type === 'call-error') + 1;
    const cut = await cutJournal(journal, k, RUN_ID, resumedScheduler);
    const counts: CallCounts = new Map();
    const resumed = await drive(resumedScheduler, observeRun('story', 'go', build(resumedScheduler, counts), { store: cut, runId: RUN_ID, scheduler: resumedScheduler }));
    expect(rootEnd(resumed.events)).toMatchObject({ success: true, output: 'b(AgentError/AGENT_ERROR/true/Agent "broken" failed: quota exceeded/true)' });
    expect(rootEnd(resumed.events)).toEqual({ ...rootEnd(whole.events), at: expect.any(Number), durationMs: expect.any(Number) });
    expect(counts).toEqual(new Map([['b', 1]]));
  });
});

describe('a reader that leaves', () => {
  it('stops the run here as a crash would: nothing of the teardown is journaled, the lease is given back, and the run resumes', async () => {
    const scheduler = virtualTime();
    const store = new MemoryRunStore({ scheduler });
    const first = await drive(
      scheduler,
      observeRun('story', 'go', chain(scheduler, new Map()), { store, runId: RUN_ID, scheduler }).pipe(takeWhile((event) => !(event.type === 'call-start' && event.agentId === 'b'), true)),
    );
    expect(first.events.at(-1)).toMatchObject({ type: 'call-start', agentId: 'b' });
    const journal = await journalOf(store, RUN_ID);
    expect(journal).toEqual(first.events);
    const counts: CallCounts = new Map();
    const resumed = await drive(scheduler, observeRun('story', 'go', chain(scheduler, counts), { store, runId: RUN_ID, scheduler }));
    expect(resumed.error).toBeUndefined();
    expect(rootEnd(resumed.events)).toMatchObject({ success: true, output: 'c(b(a(go)))' });
    expect(counts).toEqual(new Map([['b', 1], ['c', 1]]));
  });

  it('a reader that leaves while the journal is read out gives the lease back', async () => {
    const journal = await chainJournal();
    const scheduler = virtualTime();
    const store = await cutJournal(journal, afterEndOf(journal, 'a'), RUN_ID, scheduler);
    const counts: CallCounts = new Map();
    const glance = await drive(scheduler, observeRun('story', 'go', chain(scheduler, counts), { store, runId: RUN_ID, scheduler }).pipe(take(2)));
    expect(glance.events).toHaveLength(2);
    const resumed = await drive(scheduler, observeRun('story', 'go', chain(scheduler, counts), { store, runId: RUN_ID, scheduler }));
    expect(resumed.error).toBeUndefined();
    expect(counts).toEqual(new Map([['b', 1], ['c', 1]]));
  });
});

describe('divergence', () => {
  async function resumeAfterA(change: { first?: string; input?: string; rootInput?: string }) {
    const journal = await chainJournal();
    const scheduler = virtualTime();
    const k = afterEndOf(journal, 'a');
    const cut = await cutJournal(journal, k, RUN_ID, scheduler);
    const counts: CallCounts = new Map();
    const result = await drive(scheduler, observeRun('story', change.rootInput ?? 'go', chain(scheduler, counts, change.first, change.input), { store: cut, runId: RUN_ID, scheduler }));
    return { ...result, counts, journal: await journalOf(cut, RUN_ID), cutJournal: journal.slice(0, k) };
  }

  it('a different agent at a recorded place fails the whole run, calls nothing more and journals nothing after it', async () => {
    const { events, counts, journal, cutJournal: before } = await resumeAfterA({ first: 'z' });
    const end = rootEnd(events.slice(before.length));
    expect(end).toMatchObject({ success: false, error: { name: 'RunDivergenceError', code: 'RUN_DIVERGED' } });
    expect((end as { error: { message: string } }).error.message).toBe(`Run "${RUN_ID}" diverged from its journal at "run/0": recorded agent "a", input "go", now agent "z", input "go"`);
    expect(counts).toEqual(new Map());
    expect(journal).toEqual(before);
  });

  it('a different input at a recorded place is a divergence too', async () => {
    const { events, counts, journal, cutJournal: before } = await resumeAfterA({ input: 'stop' });
    expect(rootEnd(events.slice(before.length))).toMatchObject({ success: false, error: { code: 'RUN_DIVERGED' } });
    expect(counts).toEqual(new Map());
    expect(journal).toEqual(before);
  });

  it('a different root input is refused before anything runs: the events error with RunDivergenceError', async () => {
    const { events, error, counts, journal, cutJournal: before } = await resumeAfterA({ rootInput: 'something else' });
    expect(error).toBeInstanceOf(RunDivergenceError);
    expect(error).toMatchObject({ code: 'RUN_DIVERGED', placeKey: 'run' });
    expect(events).toEqual([]);
    expect(counts).toEqual(new Map());
    expect(journal).toEqual(before);
  });
});

describe('divergence of events and nodes', () => {
  async function journalAndResume(first: (run: RunContext) => void, second: (run: RunContext) => void) {
    const scheduler = virtualTime();
    const counts: CallCounts = new Map();
    const a = countingAgent('a', scheduler, counts);
    const body = (say: (run: RunContext) => void) => (run: RunContext) => {
      say(run);
      return invoke$(a, 'go', { run }).pipe(concatMap((text) => invoke$(a, text, { run })));
    };
    const store = new MemoryRunStore({ scheduler });
    await drive(scheduler, observeRun('story', 'go', body(first), { store, runId: RUN_ID, scheduler }));
    const journal = await journalOf(store, RUN_ID);
    const k = afterEndOf(journal, 'a');
    const resumedScheduler = virtualTime();
    const cut = await cutJournal(journal, k, RUN_ID, resumedScheduler);
    counts.clear();
    const resumed = await drive(resumedScheduler, observeRun('story', 'go', body(second), { store: cut, runId: RUN_ID, scheduler: resumedScheduler }));
    return { resumed, counts, before: journal.slice(0, k), after: await journalOf(cut, RUN_ID) };
  }

  it('an event of another type at a recorded position of a node is a divergence', async () => {
    const { resumed, counts, before, after } = await journalAndResume(
      (run) => emitCustom(run, 'plan', 1),
      (run) => emitUsage(run, { agentId: 'a', totalTokens: 3 }),
    );
    expect(rootEnd(resumed.events.slice(before.length))).toMatchObject({ success: false, error: { code: 'RUN_DIVERGED' } });
    expect((rootEnd(resumed.events.slice(before.length)) as { error: { message: string } }).error.message).toMatch(/at "run": recorded a "custom" event, now a "usage" event/);
    expect(counts).toEqual(new Map());
    expect(after).toEqual(before);
  });

  it('a nested run where the journal has a call is a divergence', async () => {
    const scheduler = virtualTime();
    const a = countingAgent('a', scheduler, new Map());
    const store = new MemoryRunStore({ scheduler });
    await drive(scheduler, observeRun('story', 'go', (run) => invoke$(a, 'go', { run }), { store, runId: RUN_ID, scheduler }));
    const journal = await journalOf(store, RUN_ID);
    const cut = await cutJournal(journal, journal.length - 1, RUN_ID, scheduler);
    const resumed = await drive(scheduler, observeRun('story', 'go', (run) => traceRun(run, 'inner', 'go', (inner) => invoke$(a, 'go', { run: inner })), { store: cut, runId: RUN_ID, scheduler }));
    expect(rootEnd(resumed.events.slice(journal.length - 1))).toMatchObject({ success: false, error: { code: 'RUN_DIVERGED' } });
    expect(await journalOf(cut, RUN_ID)).toEqual(journal.slice(0, -1));
  });
});

describe('two resumers at once', () => {
  it('exactly one runs the run; the other errors with RunLeasedError', async () => {
    const journal = await chainJournal();
    const scheduler = virtualTime();
    const cut = await cutJournal(journal, afterEndOf(journal, 'a'), RUN_ID, scheduler);
    const counts: CallCounts = new Map();
    const [one, two] = await Promise.all([
      drive(scheduler, observeRun('story', 'go', chain(scheduler, counts), { store: cut, runId: RUN_ID, scheduler })),
      drive(scheduler, observeRun('story', 'go', chain(scheduler, counts), { store: cut, runId: RUN_ID, scheduler })),
    ]);
    const refused = [one, two].filter((result) => result.error !== undefined);
    const ran = [one, two].filter((result) => result.error === undefined);
    expect(refused).toHaveLength(1);
    expect(refused[0]!.error).toBeInstanceOf(RunLeasedError);
    expect(refused[0]!.events).toEqual([]);
    expect(rootEnd(ran[0]!.events)).toMatchObject({ success: true });
    expect(counts).toEqual(new Map([['b', 1], ['c', 1]]));
  });

  it('a restarted runner under the lease owner takes the run back at once; another is refused, naming the owner', async () => {
    const journal = await chainJournal();
    const scheduler = virtualTime();
    const cut = await cutJournal(journal, afterEndOf(journal, 'a'), RUN_ID, scheduler);
    // The process that ran it stopped with its 30 s lease held, under its owner.
    const crashed = await cut.acquireLease(RUN_ID, 30_000, { owner: 'registry-a' });
    const counts: CallCounts = new Map();
    const other = await drive(scheduler, observeRun('story', 'go', chain(scheduler, counts), { store: cut, runId: RUN_ID, scheduler, leaseOwner: 'registry-b' }));
    expect(other.error).toBeInstanceOf(RunLeasedError);
    expect(other.error).toMatchObject({ holder: { owner: 'registry-a' } });
    const restarted = await drive(scheduler, observeRun('story', 'go', chain(scheduler, counts), { store: cut, runId: RUN_ID, scheduler, leaseOwner: 'registry-a' }));
    expect(restarted.error).toBeUndefined();
    expect(rootEnd(restarted.events)).toMatchObject({ success: true });
    expect(counts).toEqual(new Map([['b', 1], ['c', 1]]));
    await expect(cut.renewLease(crashed, 30_000)).rejects.toBeInstanceOf(RunLeaseLostError);
  });
});

/** A store that forwards to a memory store, with switches to make it fail. */
class FaultyStore implements RunStore {
  appendsLeft = Infinity;
  pretendRenewals = false;
  constructor(readonly inner: MemoryRunStore) {}
  append(runId: string, events: readonly RunEvent[], lease?: RunLease): Promise<void> {
    if (this.appendsLeft-- <= 0) return Promise.reject(new RunStoreError('append', runId, new Error('ENOSPC: no space left on device'), true));
    return this.inner.append(runId, events, lease);
  }
  read(runId: string, fromSeq?: number) {
    return this.inner.read(runId, fromSeq);
  }
  summary(runId: string) {
    return this.inner.summary(runId);
  }
  list() {
    return this.inner.list();
  }
  acquireLease(runId: string, ttlMs: number) {
    return this.inner.acquireLease(runId, ttlMs);
  }
  renewLease(lease: RunLease, ttlMs: number) {
    return this.pretendRenewals ? Promise.resolve(lease) : this.inner.renewLease(lease, ttlMs);
  }
  releaseLease(lease: RunLease) {
    return this.inner.releaseLease(lease);
  }
  expire(runId: string, afterMs: number) {
    return this.inner.expire(runId, afterMs);
  }
  delete(runId: string) {
    return this.inner.delete(runId);
  }
}

function slowAgent(scheduler: ReturnType<typeof virtualTime>, signals: AbortSignal[]) {
  return defineAgent('slow', (_input, { signal }) => {
    signals.push(signal);
    return timer(60_000, scheduler).pipe(map(() => 'late'));
  });
}

describe('a failing store', () => {
  it('an append that rejects ends the run with RunStoreError and aborts the agent in flight', async () => {
    const scheduler = virtualTime();
    const store = new FaultyStore(new MemoryRunStore({ scheduler }));
    // The third append carries the last delta of `a` and the start of `slow`, which is then in flight.
    store.appendsLeft = 2;
    const signals: AbortSignal[] = [];
    const a = countingAgent('a', scheduler, new Map());
    const slow = slowAgent(scheduler, signals);
    const { events, error } = await drive(scheduler, observeRun('story', 'go', (run) => invoke$(a, 'go', { run }).pipe(concatMap((text) => invoke$(slow, text, { run }))), { store, runId: RUN_ID, scheduler }));
    expect(error).toBeUndefined();
    expect(events.at(-1)).toMatchObject({ type: 'run-end', parentCallId: null, success: false, error: { name: 'RunStoreError', code: 'RUN_STORE_FAILED' } });
    expect(events.filter((event) => event.type === 'run-end')).toHaveLength(1);
    expect(signals).toHaveLength(1);
    expect(signals[0]!.aborted).toBe(true);
    expect(scheduler.now()).toBeLessThan(60_000);
  });

  it('a lease another holder took after it expired stops the run with RunLeaseLostError', async () => {
    const scheduler = virtualTime();
    const inner = new MemoryRunStore({ scheduler });
    const store = new FaultyStore(inner);
    const signals: AbortSignal[] = [];
    const slow = slowAgent(scheduler, signals);
    scheduler.schedule(() => (store.pretendRenewals = true), 1_500);
    scheduler.schedule(() => {
      void inner.acquireLease(RUN_ID, 3_000).then(() => (store.pretendRenewals = false));
    }, 5_000);
    const { events } = await drive(scheduler, observeRun('story', 'go', (run) => invoke$(slow, 'go', { run }), { store, runId: RUN_ID, scheduler, leaseTtlMs: 3_000 }));
    expect(events.at(-1)).toMatchObject({ type: 'run-end', parentCallId: null, success: false, error: { name: 'RunLeaseLostError', code: 'RUN_LEASE_LOST' } });
    expect(signals[0]!.aborted).toBe(true);
    expect(scheduler.now()).toBeLessThan(10_000);
  });

  it('a run whose renewals came after its lease lapsed, while nobody took it (a stalled process), goes on and succeeds', async () => {
    const scheduler = virtualTime();
    const inner = new MemoryRunStore({ scheduler });
    const store = new FaultyStore(inner);
    const slow = slowAgent(scheduler, []);
    // From 1.5 s to 8 s no renewal reaches the store: the 3 s lease lapses at about 4 s, and nobody takes it.
    scheduler.schedule(() => (store.pretendRenewals = true), 1_500);
    scheduler.schedule(() => (store.pretendRenewals = false), 8_000);
    const { events, error } = await drive(scheduler, observeRun('story', 'go', (run) => invoke$(slow, 'go', { run }), { store, runId: RUN_ID, scheduler, leaseTtlMs: 3_000 }));
    expect(error).toBeUndefined();
    expect(events.at(-1)).toMatchObject({ type: 'run-end', parentCallId: null, success: true, output: 'late' });
  });
});

describe('a long chain', () => {
  it('20,000 journaled calls are replayed from the journal without growing the stack', async () => {
    const scheduler = virtualTime();
    const store = new MemoryRunStore({ scheduler });
    let calls = 0;
    const step = defineAgent('step', async (input) => {
      calls++;
      return String(Number(input) + 1);
    });
    const body = (run: RunContext) => range(0, 20_000).pipe(
      concatMap(() => invoke$(step, '0', { run })),
      reduce((sum, text) => sum + Number(text), 0),
      map(String),
    );
    const whole = await drive(scheduler, observeRun('long', 'go', body, { store, runId: RUN_ID, scheduler }));
    expect(rootEnd(whole.events)).toMatchObject({ success: true, output: '20000' });
    const journal = await journalOf(store, RUN_ID);
    expect(calls).toBe(20_000);

    // Everything but the root's end: every call is replayed, and the run ends again.
    const cut = await cutJournal(journal, journal.length - 1, RUN_ID, scheduler);
    calls = 0;
    const resumed = await drive(scheduler, observeRun('long', 'go', body, { store: cut, runId: RUN_ID, scheduler }));
    expect(resumed.error).toBeUndefined();
    expect(rootEnd(resumed.events)).toMatchObject({ success: true, output: '20000' });
    expect(calls).toBe(0);
    expect(await journalOf(cut, RUN_ID)).toHaveLength(journal.length);
  }, 60_000);
});

describe('a chain where each call starts the next one', () => {
  it('20,000 replayed calls, each started from the one before as it completes, replay on one stack', async () => {
    const scheduler = virtualTime();
    const store = new MemoryRunStore({ scheduler });
    let calls = 0;
    const step = defineAgent('step', async (input) => {
      calls++;
      return String(Number(input) + 1);
    });
    const body = (run: RunContext) =>
      invoke$(step, '0', { run }).pipe(
        expand((text) => (Number(text) < 20_000 ? invoke$(step, text, { run }) : EMPTY)),
        last(),
      );
    await drive(scheduler, observeRun('long', 'go', body, { store, runId: RUN_ID, scheduler }));
    const journal = await journalOf(store, RUN_ID);
    calls = 0;
    const cut = await cutJournal(journal, journal.length - 1, RUN_ID, scheduler);
    const resumed = await drive(scheduler, observeRun('long', 'go', body, { store: cut, runId: RUN_ID, scheduler }));
    expect(resumed.error).toBeUndefined();
    expect(rootEnd(resumed.events)).toMatchObject({ success: true, output: '20000' });
    expect(calls).toBe(0);
  }, 60_000);
});

describe('the errors', () => {
  it('CallInterruptedError and RunDivergenceError are coordination errors with codes', () => {
    expect(new CallInterruptedError('r', 'run/0', 'a')).toMatchObject({ code: 'CALL_INTERRUPTED', retryable: true });
    expect(new RunDivergenceError('r', 'run/0', 'x', 'y')).toBeInstanceOf(CoordinationError);
  });
});

describe('replayed outcomes in recorded order', () => {
  // `a` answers after 20 ms and `b` after 10: `b` ends first, and the code reads the order they ended in.
  function race(scheduler: ReturnType<typeof virtualTime>, counts: CallCounts, callB = true) {
    const a = countingAgent('a', scheduler, counts, 10);
    const b = countingAgent('b', scheduler, counts, 5);
    const c = countingAgent('c', scheduler, counts);
    return (run: RunContext) =>
      (callB ? merge(invoke$(a, 'x', { run }), invoke$(b, 'x', { run })) : invoke$(a, 'x', { run })).pipe(
        toArray(),
        concatMap((answers) => invoke$(c, answers.join(' then '), { run })),
      );
  }

  async function raceJournal(): Promise<RunEvent[]> {
    const scheduler = virtualTime();
    const store = new MemoryRunStore({ scheduler });
    await drive(scheduler, observeRun('race', 'go', race(scheduler, new Map()), { store, runId: RUN_ID, scheduler }));
    return journalOf(store, RUN_ID);
  }

  it('calls that ended out of start order are answered in the order they ended, so the code sees what it saw', async () => {
    const journal = await raceJournal();
    const scheduler = virtualTime();
    const counts: CallCounts = new Map();
    const store = await cutJournal(journal, journal.findIndex((event) => event.type === 'call-start' && event.agentId === 'c'), RUN_ID, scheduler);
    const { events } = await drive(scheduler, observeRun('race', 'go', race(scheduler, counts), { store, runId: RUN_ID, scheduler }));
    expect(rootEnd(events)).toMatchObject({ success: true, output: 'c(b(x) then a(x))' });
    expect([...counts]).toEqual([['c', 1]]);
  });

  it('a recorded call the resumed code no longer makes stops the run with RunDivergenceError naming it, instead of waiting for ever', async () => {
    const journal = await raceJournal();
    const scheduler = virtualTime();
    const store = await cutJournal(journal, journal.findIndex((event) => event.type === 'call-start' && event.agentId === 'c'), RUN_ID, scheduler);
    const { events } = await drive(scheduler, observeRun('race', 'go', race(scheduler, new Map(), false), { store, runId: RUN_ID, scheduler, leaseTtlMs: 3_000 }));
    expect(rootEnd(events)).toMatchObject({ success: false, error: { code: 'RUN_DIVERGED' } });
    const { message } = (rootEnd(events) as RunEventOf<'run-end'>).error as { message: string };
    expect(message).toContain('"run/1"');
    expect(message).toContain('agent "b"');
    expect(message).toContain('did not make this call again');
  });
});
