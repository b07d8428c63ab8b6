import type { EventSourceMessage } from 'eventsource-parser';
import { defer, from, Subject, VirtualTimeScheduler } from 'rxjs';
import { ConfigError, defineAgent, invoke$, MemoryRunStore, type RunContext, type RunEvent, type RunLease, type RunRecord, type RunStore } from '@rxagents/core';
import { createRunRegistry, type DurableRunRegistry } from '@rxagents/web';
import { advance, chainOfThree, readerOf, settle, waitFor, waitUntil, watch } from './helpers/durable';

const quiet = { heartbeatMs: Infinity, stallTimeoutMs: Infinity } as const;
const parsed = (message: EventSourceMessage): RunEvent => JSON.parse(message.data) as RunEvent;
const ids = (messages: readonly EventSourceMessage[]): (string | undefined)[] => messages.map((m) => m.id);
const upTo = (n: number, from = 0): string[] => Array.from({ length: n - from }, (_, i) => String(from + i));

/** An agent that streams `count` chunks at once. */
const chatty = (count: number) => defineAgent('chatty', () => from(Array.from({ length: count }, (_, i) => `chunk ${i} `)));

/** A store that counts, per `read`, how many records were taken from it. */
function countingReads(store: RunStore): { store: RunStore; taken: number[] } {
  const taken: number[] = [];
  const counted: RunStore = {
    append: (runId, events, lease) => store.append(runId, events, lease),
    read: (runId, fromSeq) => ({
      async *[Symbol.asyncIterator](): AsyncIterator<RunRecord> {
        const index = taken.push(0) - 1;
        for await (const record of store.read(runId, fromSeq)) {
          taken[index] = (taken[index] ?? 0) + 1;
          yield record;
        }
      },
    }),
    summary: (runId) => store.summary(runId),
    list: (options) => store.list(options),
    acquireLease: (runId, ttlMs) => store.acquireLease(runId, ttlMs),
    renewLease: (lease, ttlMs) => store.renewLease(lease, ttlMs),
    releaseLease: (lease) => store.releaseLease(lease),
    expire: (runId, afterMs) => store.expire(runId, afterMs),
    delete: (runId) => store.delete(runId),
  };
  return { store: counted, taken };
}

describe('createRunRegistry with a store: limits', () => {
  const registries: DurableRunRegistry[] = [];
  const track = (registry: DurableRunRegistry): DurableRunRegistry => (registries.push(registry), registry);
  afterEach(() => registries.splice(0).forEach((registry) => registry.close()));

  it('reads a journal in pages: a viewer takes a long journal from the store a page at a time, as it reads', async () => {
    const scheduler = new VirtualTimeScheduler();
    const memory = new MemoryRunStore({ scheduler });
    const agent = chatty(2_000);
    const runs = new Map([['chatty', (input: string) => (run: RunContext) => invoke$(agent, input, { run })]]);
    const first = track(createRunRegistry({ store: memory, runs, scheduler, ...quiet }));
    const { runId } = first.start('chatty', 'go');
    await waitFor(async () => (await memory.summary(runId))?.status === 'succeeded');
    const { store, taken } = countingReads(memory);
    const second = track(createRunRegistry({ store, scheduler, ...quiet }));
    const viewer = readerOf((await second.response(runId, watch())).body);
    const opening = (await viewer.next()) as EventSourceMessage[];
    await settle();
    // One page went out; the body may have asked for the next one.
    expect(opening.length).toBeLessThanOrEqual(256);
    expect(taken.reduce((sum, each) => sum + each, 0)).toBeLessThanOrEqual(2 * 256);
    const all = [...opening, ...(await viewer.rest())];
    expect(ids(all)).toEqual(upTo(2_004));
    // Each page went on where the last one stopped: the store handed over each record once.
    expect(taken.reduce((sum, each) => sum + each, 0)).toBe(2_004);
  });

  it('replayLimit bounds what a registry holds in memory; older events of a durable run come from its journal, not a REPLAY_GAP', async () => {
    const scheduler = new VirtualTimeScheduler();
    const store = new MemoryRunStore({ scheduler });
    const agent = chatty(100);
    const runs = new Map([['chatty', (input: string) => (run: RunContext) => invoke$(agent, input, { run })]]);
    const registry = track(createRunRegistry({ store, runs, scheduler, replayLimit: 10, ...quiet }));
    const { runId } = registry.start('chatty', 'go');
    await waitFor(async () => (await store.summary(runId))?.status === 'succeeded');
    const late = await readerOf((await registry.response(runId, watch('4'))).body).rest();
    expect(ids(late)).toEqual(upTo(104, 5));
    expect(late.map((m) => m.event)).not.toContain('error');
  });

  it('a viewer is shown an event only once the store holds it, so one that reconnects elsewhere never finds it missing', async () => {
    const scheduler = new VirtualTimeScheduler();
    const memory = new MemoryRunStore({ scheduler });
    let open = false;
    const held: (() => void)[] = [];
    // A store whose appends wait until the test opens it.
    const store: RunStore = {
      ...countingReads(memory).store,
      append: (runId: string, events: readonly RunEvent[], lease?: RunLease) =>
        open ? memory.append(runId, events, lease) : new Promise<void>((resolve) => held.push(resolve)).then(() => memory.append(runId, events, lease)),
    };
    const gate = new Subject<string>();
    const agent = defineAgent('slow', () => gate);
    const registry = track(createRunRegistry({ store, runs: new Map([['slow', () => (run: RunContext) => invoke$(agent, 'go', { run })]]), scheduler, ...quiet }));
    const { runId } = registry.start('slow', 'go');
    const viewer = readerOf((await registry.response(runId, watch())).body);
    const first = viewer.next();
    await waitUntil(() => held.length > 0);
    gate.next('hello');
    await settle();
    expect(await Promise.race([first, settle().then(() => 'nothing yet')])).toBe('nothing yet');
    open = true;
    held.splice(0).forEach((release) => release());
    const shown = (await first) as EventSourceMessage[];
    expect(shown.map((m) => parsed(m).type)).toEqual(['run-start', 'call-start']);
    gate.complete();
    const rest = await viewer.rest();
    expect(ids([...shown, ...rest])).toEqual(upTo(5));
  });

  it('a cancelled durable run is journaled as cancelled: it is not resumed, and its journal ends as its viewers saw it end', async () => {
    const scheduler = new VirtualTimeScheduler();
    const store = new MemoryRunStore({ scheduler });
    const { runs, calls } = chainOfThree();
    const first = track(createRunRegistry({ store, runs, scheduler, ...quiet }));
    const { runId } = first.start('chain', 'go');
    await waitUntil(() => calls.get('b') === 1);
    await settle();
    const seen = readerOf((await first.response(runId, watch())).body).rest();
    expect(first.cancel(runId)).toBe(true);
    const live = await seen;
    await waitFor(async () => (await store.summary(runId))?.status === 'failed');
    const second = track(createRunRegistry({ store, runs, scheduler, ...quiet }));
    expect(await second.resumeAll()).toEqual([]);
    const fromJournal = await readerOf((await second.response(runId, watch())).body).rest();
    expect(fromJournal).toEqual(live);
    expect(parsed(fromJournal.at(-1) as EventSourceMessage)).toMatchObject({ type: 'run-end', callId: 'run', success: false, error: { name: 'AbortError' } });
    expect(Object.fromEntries(calls)).toEqual({ a: 1, b: 1, c: 0 });
  });

  it('a finished run the registry let go of (ttlMs) is still served from its journal; close() ends the viewers with RUN_FORGOTTEN', async () => {
    const scheduler = new VirtualTimeScheduler();
    const store = new MemoryRunStore({ scheduler });
    const { runs, calls } = chainOfThree({ hang: false });
    const registry = track(createRunRegistry({ store, runs, scheduler, ttlMs: 1_000, pollMs: 100, ...quiet }));
    const { runId } = registry.start('chain', 'go');
    await waitFor(async () => (await store.summary(runId))?.status === 'succeeded');
    advance(scheduler, 1_001);
    expect(registry.has(runId)).toBe(false);
    const replay = await readerOf((await registry.response(runId, watch())).body).rest();
    expect(parsed(replay.at(-1) as EventSourceMessage)).toMatchObject({ type: 'run-end', success: true });
    expect(calls.get('a')).toBe(1);

    // A viewer polling a run that no process runs, and that this registry cannot resume (no code for it).
    const { runId: other } = track(createRunRegistry({ store, runs: chainOfThree().runs, scheduler, ...quiet })).start('chain', 'go');
    await waitFor(async () => ((await store.summary(other))?.records ?? 0) > 3);
    const stranger = track(createRunRegistry({ store, scheduler, pollMs: 100, ...quiet }));
    const viewer = readerOf((await stranger.response(other, watch())).body);
    await viewer.next();
    const waiting = viewer.rest();
    await settle();
    stranger.close();
    expect((await waiting).map((m) => m.event)).toEqual(['error']);
    expect(JSON.parse((await waiting)[0]?.data ?? '')).toMatchObject({ code: 'RUN_FORGOTTEN' });
  });

  it('a viewer of a journal that stops reading is cut off after stallTimeoutMs', async () => {
    const scheduler = new VirtualTimeScheduler();
    const store = new MemoryRunStore({ scheduler });
    const agent = chatty(2_000);
    const runs = new Map([['chatty', (input: string) => (run: RunContext) => invoke$(agent, input, { run })]]);
    const first = track(createRunRegistry({ store, runs, scheduler, ...quiet }));
    const { runId } = first.start('chatty', 'go');
    await waitFor(async () => (await store.summary(runId))?.status === 'succeeded');
    const second = track(createRunRegistry({ store, scheduler, heartbeatMs: Infinity, stallTimeoutMs: 1_000 }));
    const viewer = readerOf((await second.response(runId, watch())).body);
    await viewer.next();
    await settle();
    advance(scheduler, 2_001);
    const rest = await viewer.rest();
    expect(JSON.parse(rest.at(-1)?.data ?? '')).toMatchObject({ code: 'VIEWER_STALLED' });
    expect(rest.length).toBeLessThan(600);
  });

  it('runs given as events stay in memory; start by name needs the code in runs; bad options are ConfigErrors', async () => {
    const scheduler = new VirtualTimeScheduler();
    const store = new MemoryRunStore({ scheduler });
    const registry = track(createRunRegistry({ store, scheduler, ...quiet }));
    const events$ = new Subject<RunEvent>();
    const { runId } = registry.start(events$);
    events$.next({ type: 'custom', runId: 'r', callId: 'c', parentCallId: null, at: 0, name: 'n', data: 1 });
    events$.complete();
    expect((await readerOf((await registry.response(runId, watch())).body).rest()).map((m) => m.id)).toEqual(['0']);
    expect(await store.summary(runId)).toBeUndefined();
    expect(() => registry.start('unknown', 'go')).toThrow(ConfigError);
    const made = defer(() => from(['x']));
    expect(() => registry.start('unknown', 'go', () => made)).not.toThrow();
    expect(() => createRunRegistry({ store, runs: { chain: () => () => made } as never })).toThrow(/runs/);
    expect(() => createRunRegistry({ store, pollMs: 0 })).toThrow(/pollMs/);
    expect(() => createRunRegistry({ store, leaseTtlMs: 1 })).toThrow(/leaseTtlMs/);
    expect(() => createRunRegistry({ store: {} as never })).toThrow(/store/);
  });
});
