import type { EventSourceMessage } from 'eventsource-parser';
import { lastValueFrom, toArray, VirtualTimeScheduler } from 'rxjs';
import { defineAgent, invoke$, MemoryRunStore, observeRun, type RunContext, type RunEvent, type RunStore } from '@rxagents/core';
import { createRunRegistry, type DurableRunRegistry } from '@rxagents/web';
import { advance, chainOfThree, readerOf, settle, waitFor, waitUntil, watch } from './helpers/durable';

const quiet = { heartbeatMs: Infinity, stallTimeoutMs: Infinity } as const;
const parsed = (message: EventSourceMessage): RunEvent => JSON.parse(message.data) as RunEvent;
const isCallStartOf = (agentId: string) => (message: EventSourceMessage): boolean => {
  const event = parsed(message);
  return event.type === 'call-start' && event.agentId === agentId;
};
const ids = (messages: readonly EventSourceMessage[]): (string | undefined)[] => messages.map((m) => m.id);
const upTo = (n: number): string[] => Array.from({ length: n }, (_, i) => String(i));

async function journal(store: RunStore, runId: string): Promise<RunEvent[]> {
  const events: RunEvent[] = [];
  for await (const record of store.read(runId)) events.push(record.event);
  return events;
}

/** The root `run-end`'s output of the same chain run without a store, never interrupted. */
async function uninterruptedOutput(): Promise<string | undefined> {
  const chain = chainOfThree({ hang: false }).runs.get('chain');
  const events = await lastValueFrom(observeRun('chain', 'go', (run) => (chain as NonNullable<typeof chain>)('go')(run)).pipe(toArray()));
  const end = events.at(-1);
  return end?.type === 'run-end' ? end.output : undefined;
}

describe('createRunRegistry with a store', () => {
  const registries: DurableRunRegistry[] = [];
  const track = (registry: DurableRunRegistry): DurableRunRegistry => (registries.push(registry), registry);
  afterEach(() => registries.splice(0).forEach((registry) => registry.close()));

  it.each(['resumeAll', "the viewer's request"])(
    'after a restart (resumed by %s), a viewer that reconnects with Last-Event-ID gets exactly the rest of the run; finished calls are not called again',
    async (how) => {
      const scheduler = new VirtualTimeScheduler();
      const store = new MemoryRunStore({ scheduler });
      const { runs, calls } = chainOfThree();
      const first = track(createRunRegistry({ store, runs, scheduler, ...quiet }));
      const { runId } = first.start('chain', 'go');
      // A viewer watches until `b` is called; `b` is in flight when the server stops.
      const viewer = readerOf((await first.response(runId, watch())).body);
      const before = await viewer.until(isCallStartOf('b'));
      first.close();
      const cutOff = await viewer.rest();
      expect(cutOff.map((m) => JSON.parse(m.data) as { code?: string })).toEqual([expect.objectContaining({ code: 'RUN_FORGOTTEN' })]);
      expect((await store.summary(runId))?.status).toBe('running');
      await settle();

      // The server starts again: a new registry on the same store.
      const second = track(createRunRegistry({ store, runs, scheduler, ...quiet }));
      if (how === 'resumeAll') expect(await second.resumeAll()).toEqual([runId]);
      const last = before.at(-1)?.id as string;
      const rest = await readerOf((await second.response(runId, watch(last))).body).rest();
      const all = [...before, ...rest];
      expect(ids(all)).toEqual(upTo(all.length));
      const recorded = await journal(store, runId);
      expect(all.map((m) => [parsed(m).type, parsed(m).callId])).toEqual(recorded.map((event) => [event.type, event.callId]));
      const end = parsed(all.at(-1) as EventSourceMessage);
      expect(end).toMatchObject({ type: 'run-end', callId: 'run', success: true, output: await uninterruptedOutput() });
      // `a` had answered: it was not called again; `b` was in flight: it ran again.
      expect(Object.fromEntries(calls)).toEqual({ a: 1, b: 2, c: 1 });
      expect((await store.summary(runId))?.status).toBe('succeeded');
    },
  );

  it('a run that another registry runs is served from its journal, read again every pollMs, live to its end', async () => {
    const scheduler = new VirtualTimeScheduler();
    const store = new MemoryRunStore({ scheduler });
    const { runs, calls, answerB } = chainOfThree();
    const first = track(createRunRegistry({ store, runs, scheduler, ...quiet }));
    const { runId } = first.start('chain', 'go');
    await waitUntil(() => calls.get('b') === 1);
    const second = track(createRunRegistry({ store, runs, scheduler, pollMs: 500, ...quiet }));
    // The first registry holds the run's lease: the second does not resume it.
    expect(await second.resumeAll()).toEqual([]);
    const viewer = readerOf((await second.response(runId, watch())).body);
    const seen = await viewer.until(isCallStartOf('b'));
    expect(second.has(runId)).toBe(false);
    const pending = viewer.next();
    await settle();
    // The run goes on in the first registry; the viewer of the second gets it at its next read of the journal.
    answerB();
    await waitFor(async () => (await store.summary(runId))?.status === 'succeeded');
    expect(await Promise.race([pending, settle().then(() => 'still waiting')])).toBe('still waiting');
    advance(scheduler, 500);
    const polled = await pending;
    const rest = await viewer.rest();
    const all = [...seen, ...(polled as EventSourceMessage[]), ...rest];
    expect(ids(all)).toEqual(upTo((await journal(store, runId)).length));
    expect(parsed(all.at(-1) as EventSourceMessage)).toMatchObject({ type: 'run-end', callId: 'run', success: true, output: 'C(late B)' });
    expect(second.has(runId)).toBe(false);
    expect(Object.fromEntries(calls)).toEqual({ a: 1, b: 1, c: 1 });
  });

  it('a run whose lease a stopped process still holds is served from its journal, and taken over at a read after the lease lapsed', async () => {
    const scheduler = new VirtualTimeScheduler();
    const store = new MemoryRunStore({ scheduler });
    const { runs, calls } = chainOfThree();
    const first = track(createRunRegistry({ store, runs, scheduler, ...quiet }));
    const { runId } = first.start('chain', 'go');
    await waitUntil(() => calls.get('b') === 1);
    await settle();
    first.close();
    await settle();
    // A process that crashed holding the run's lease: nobody renews it, it lapses at 10 s.
    await store.acquireLease(runId, 10_000);
    const second = track(createRunRegistry({ store, runs, scheduler, pollMs: 500, ...quiet }));
    expect(await second.resumeAll()).toEqual([]);
    const viewer = readerOf((await second.response(runId, watch())).body);
    const seen = await viewer.until(isCallStartOf('b'));
    expect(second.has(runId)).toBe(false);
    const pending = viewer.next();
    await settle();
    advance(scheduler, 9_999);
    await settle();
    expect(second.has(runId)).toBe(false);
    advance(scheduler, 10_500);
    const rest = [...((await pending) as EventSourceMessage[]), ...(await viewer.rest())];
    const all = [...seen, ...rest];
    expect(ids(all)).toEqual(upTo(all.length));
    expect(parsed(all.at(-1) as EventSourceMessage)).toMatchObject({ type: 'run-end', callId: 'run', success: true, output: await uninterruptedOutput() });
    expect(second.has(runId)).toBe(true);
    expect(Object.fromEntries(calls)).toEqual({ a: 1, b: 2, c: 1 });
  });

  it('with pollMs Infinity a run that runs elsewhere is served up to what its journal holds, then the stream ends', async () => {
    const scheduler = new VirtualTimeScheduler();
    const store = new MemoryRunStore({ scheduler });
    const { runs, calls } = chainOfThree();
    const first = track(createRunRegistry({ store, runs, scheduler, ...quiet }));
    const { runId } = first.start('chain', 'go');
    await waitUntil(() => calls.get('b') === 1);
    await settle();
    const second = track(createRunRegistry({ store, runs, scheduler, pollMs: Infinity, ...quiet }));
    const seen = await readerOf((await second.response(runId, watch())).body).rest();
    expect(ids(seen)).toEqual(upTo((await journal(store, runId)).length));
    expect(seen.some(isCallStartOf('b'))).toBe(true);
    expect(second.has(runId)).toBe(false);
  });

  it('an unknown run is a 404, a bad or unknown Last-Event-ID a 400, whether the run is held here or only in the store', async () => {
    const scheduler = new VirtualTimeScheduler();
    const store = new MemoryRunStore({ scheduler });
    const { runs } = chainOfThree();
    const first = track(createRunRegistry({ store, runs, scheduler, ...quiet }));
    const { runId } = first.start('chain', 'go');
    await waitUntil(() => first.has(runId));
    await settle();
    const second = track(createRunRegistry({ store, scheduler, ...quiet }));
    for (const registry of [first, second]) {
      expect((await registry.response('no-such-run', watch())).status).toBe(404);
      expect((await registry.response('', watch())).status).toBe(404);
      expect((await registry.response('no-such-run', watch('abc'))).status).toBe(404);
      const bad = await registry.response(runId, watch('<script>steal()</script>'));
      expect(bad.status).toBe(400);
      expect(await bad.text()).toBe('Last-Event-ID is not an event of this run');
      expect((await registry.response(runId, watch('99999'))).status).toBe(400);
      const fine = await registry.response(runId, watch('0'));
      expect(fine.status).toBe(200);
      await fine.body?.cancel();
    }
  });

  it("errors in events served from the journal are redacted as the registry's own are, shown with exposeError", async () => {
    const scheduler = new VirtualTimeScheduler();
    const store = new MemoryRunStore({ scheduler });
    const secret = 'connect ECONNREFUSED 10.0.4.2:6379';
    const database = defineAgent('database', async () => {
      throw Object.assign(new Error(secret), { code: 'ECONNREFUSED' });
    });
    const runs = new Map([['failing', (input: string) => (run: RunContext) => invoke$(database, input, { run })]]);
    const first = track(createRunRegistry({ store, runs, scheduler, ...quiet }));
    const { runId } = first.start('failing', 'go');
    await waitFor(async () => (await store.summary(runId))?.status === 'failed');
    expect((await store.summary(runId))?.status).toBe('failed');
    expect(JSON.stringify(await journal(store, runId))).toContain('10.0.4.2');
    const redacted = await readerOf((await track(createRunRegistry({ store, scheduler, ...quiet })).response(runId, watch())).body).rest();
    const text = redacted.map((m) => m.data).join('\n');
    expect(text).not.toContain('10.0.4.2');
    expect(redacted.map(parsed).find((event) => event.type === 'run-end' && event.parentCallId === null)).toMatchObject({
      error: { name: 'AgentError', message: 'An error occurred on the server', code: 'AGENT_ERROR' },
    });
    const shown = await readerOf((await track(createRunRegistry({ store, scheduler, exposeError: (error) => error, ...quiet })).response(runId, watch())).body).rest();
    expect(shown.map((m) => m.data).join('\n')).toContain('10.0.4.2');
  });
});
