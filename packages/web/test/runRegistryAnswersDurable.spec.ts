import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { map, of, Subject, switchMap, take, VirtualTimeScheduler, type Observable } from 'rxjs';
import { z } from 'zod';
import {
  askForInput,
  defineAgent,
  InterruptNotFoundError,
  invoke$,
  MemoryRunStore,
  pendingInterrupts,
  type RunContext,
  type RunEvent,
  type RunEventOf,
  type RunStore,
} from '@rxagents/core';
import { FileRunStore } from '@rxagents/core/file-store';
import { createRunRegistry, RunHeldElsewhereError, type DurableRunRegistry } from '@rxagents/web';
import { bodyOf, nextInterrupt, post } from './helpers/answers';
import { advance, settle, waitFor } from './helpers/durable';

const quiet = { heartbeatMs: Infinity, stallTimeoutMs: Infinity } as const;
type Runs = ReadonlyMap<string, (input: string) => (run: RunContext) => Observable<unknown>>;

async function journal(store: RunStore, runId: string): Promise<RunEvent[]> {
  const events: RunEvent[] = [];
  for await (const record of store.read(runId)) events.push(record.event);
  return events;
}

const openInJournal = async (store: RunStore, runId: string): Promise<RunEventOf<'interrupt'> | undefined> =>
  (await journal(store, runId)).find((event): event is RunEventOf<'interrupt'> => event.type === 'interrupt');

const rootEnd = async (store: RunStore, runId: string): Promise<RunEvent | undefined> =>
  (await journal(store, runId)).find((event) => event.type === 'run-end' && event.parentCallId === null);

/**
 * A trip planner whose agent asks for a number of days; while `held` is set, a call of the agent waits
 * for `release` before it asks (a run resumed slower than its answer's patience).
 */
function tripRuns(): { runs: Runs; hold: () => void; release: () => void; calls: () => number } {
  let held = false;
  let calls = 0;
  const gate = new Subject<void>();
  const planner = defineAgent('planner', (input, { run }) => {
    calls++;
    return (held ? gate.pipe(take(1)) : of(undefined)).pipe(
      switchMap(() => askForInput(run!, `How many days in ${input}?`, { schema: z.number().int().min(1) })),
      map((days) => `${days} days in ${input}`),
    );
  });
  const runs: Runs = new Map([['trip', (input: string) => (run: RunContext) => invoke$(planner, input, { run })]]);
  return { runs, hold: () => (held = true), release: () => gate.next(), calls: () => calls };
}

describe('a durable run registry takes answers to runs that a stopped process left waiting', () => {
  const registries: DurableRunRegistry[] = [];
  const track = (registry: DurableRunRegistry): DurableRunRegistry => (registries.push(registry), registry);
  afterEach(() => registries.splice(0).forEach((registry) => registry.close()));

  /** A run of `trip` that asked, on a server that then stopped; what it asked. */
  async function askedThenStopped(store: RunStore, runs: Runs, scheduler: VirtualTimeScheduler): Promise<{ runId: string; asked: RunEventOf<'interrupt'> }> {
    const first = createRunRegistry({ store, runs, scheduler, ...quiet });
    const { runId } = first.start('trip', 'Lisbon');
    const asked = await nextInterrupt(runId);
    await waitFor(async () => (await openInJournal(store, runId)) !== undefined);
    first.close();
    await settle();
    expect(pendingInterrupts(runId)).toEqual([]);
    return { runId, asked };
  }

  it.each(['MemoryRunStore', 'FileRunStore'])('a restarted server (%s) answers a question open before it stopped: 204, and the run completes', async (kind) => {
    const scheduler = new VirtualTimeScheduler();
    const directory = kind === 'FileRunStore' ? await mkdtemp(join(tmpdir(), 'rxagents-answers-')) : undefined;
    try {
      const store: RunStore = directory === undefined ? new MemoryRunStore({ scheduler }) : new FileRunStore({ directory, scheduler });
      const trip = tripRuns();
      const { runId, asked } = await askedThenStopped(store, trip.runs, scheduler);

      const second = track(createRunRegistry({ store, runs: trip.runs, scheduler, ...quiet }));
      expect(second.has(runId)).toBe(false);
      const response = await second.handleAnswer(runId, post({ interruptId: asked.interruptId, answer: 5 }));
      expect(response.status).toBe(204);
      await waitFor(async () => (await store.summary(runId))?.status === 'succeeded');
      expect(await rootEnd(store, runId)).toMatchObject({ success: true, output: '5 days in Lisbon' });
      expect(trip.calls()).toBe(2);
    } finally {
      if (directory !== undefined) await rm(directory, { recursive: true, force: true });
    }
  });

  it('a bad answer after a restart is a 422 and the run keeps waiting for a good one', async () => {
    const scheduler = new VirtualTimeScheduler();
    const store = new MemoryRunStore({ scheduler });
    const trip = tripRuns();
    const { runId, asked } = await askedThenStopped(store, trip.runs, scheduler);
    const second = track(createRunRegistry({ store, runs: trip.runs, scheduler, ...quiet }));
    const bad = await second.handleAnswer(runId, post({ interruptId: asked.interruptId, answer: 'a week' }));
    expect(bad.status).toBe(422);
    expect(await bodyOf(bad)).toMatchObject({ error: { code: 'INTERRUPT_ANSWER_INVALID', issues: [{ path: '' }] } });
    expect((await store.summary(runId))?.status).toBe('running');
    expect(pendingInterrupts(runId).map((event) => event.interruptId)).toEqual([asked.interruptId]);
    expect((await second.pending(runId)).map((event) => event.interruptId)).toEqual([asked.interruptId]);
    await second.answer(runId, asked.interruptId, 7);
    await waitFor(async () => (await store.summary(runId))?.status === 'succeeded');
    expect(await second.pending(runId)).toEqual([]);
    expect(await rootEnd(store, runId)).toMatchObject({ output: '7 days in Lisbon' });
  });

  it('409 while another process runs the run (it holds the lease): a RunHeldElsewhereError', async () => {
    const scheduler = new VirtualTimeScheduler();
    const store = new MemoryRunStore({ scheduler });
    const trip = tripRuns();
    const running = track(createRunRegistry({ store, runs: trip.runs, scheduler, ...quiet }));
    const { runId } = running.start('trip', 'Lisbon');
    const asked = await nextInterrupt(runId);
    await waitFor(async () => (await openInJournal(store, runId)) !== undefined);

    const elsewhere = track(createRunRegistry({ store, runs: trip.runs, scheduler, ...quiet }));
    const refused = await elsewhere.handleAnswer(runId, post({ interruptId: asked.interruptId, answer: 2 }));
    expect(refused.status).toBe(409);
    expect(await bodyOf(refused)).toEqual({ error: { code: 'RUN_HELD_ELSEWHERE', message: expect.any(String) } });
    await expect(elsewhere.answer(runId, asked.interruptId, 2)).rejects.toBeInstanceOf(RunHeldElsewhereError);
    // The process that runs it takes the answer.
    expect((await running.handleAnswer(runId, post({ interruptId: asked.interruptId, answer: 2 }))).status).toBe(204);
    await waitFor(async () => (await store.summary(runId))?.status === 'succeeded');
  });

  it('404 when the resumed run does not ask the question again within reopenTimeoutMs; answered once it does', async () => {
    const scheduler = new VirtualTimeScheduler();
    const store = new MemoryRunStore({ scheduler });
    const trip = tripRuns();
    const { runId, asked } = await askedThenStopped(store, trip.runs, scheduler);
    trip.hold();
    const second = track(createRunRegistry({ store, runs: trip.runs, scheduler, reopenTimeoutMs: 1_000, ...quiet }));
    const answered = second.answer(runId, asked.interruptId, 3).then(
      () => 'answered',
      (error: unknown) => error,
    );
    await waitFor(async () => second.has(runId) && trip.calls() === 2);
    for (let turn = 0; turn < 10; turn++) await settle();
    advance(scheduler, scheduler.now() + 1_000);
    expect(await answered).toBeInstanceOf(InterruptNotFoundError);
    trip.release();
    // Listed once the journal holds the question again.
    await waitFor(async () => pendingInterrupts(runId).length > 0);
    expect(pendingInterrupts(runId).map((event) => event.interruptId)).toEqual([asked.interruptId]);
    expect((await second.handleAnswer(runId, post({ interruptId: asked.interruptId, answer: 3 }))).status).toBe(204);
    await waitFor(async () => (await store.summary(runId))?.status === 'succeeded');
  });

  it('an answer while the resumed run has not asked again yet waits for it; one answer per question waits, another one meanwhile is a 404 at once', async () => {
    const scheduler = new VirtualTimeScheduler();
    const store = new MemoryRunStore({ scheduler });
    const trip = tripRuns();
    const { runId, asked } = await askedThenStopped(store, trip.runs, scheduler);
    trip.hold();
    const second = track(createRunRegistry({ store, runs: trip.runs, scheduler, ...quiet }));
    expect(await second.resumeAll()).toEqual([runId]);
    // The resumed run closed the question with its interrupted call, and its call runs again, not yet at its question.
    await waitFor(async () => second.has(runId) && trip.calls() === 2);
    expect((await journal(store, runId)).filter((event) => event.type === 'interrupt-end')).toEqual([expect.objectContaining({ interruptId: asked.interruptId, answered: false })]);
    expect((await second.pending(runId)).map((event) => event.interruptId)).toEqual([asked.interruptId]);
    const first = second.handleAnswer(runId, post({ interruptId: asked.interruptId, answer: 3 }));
    await settle();
    const again = await second.handleAnswer(runId, post({ interruptId: asked.interruptId, answer: 4 }));
    expect(again.status).toBe(404);
    trip.release();
    expect((await first).status).toBe(204);
    await waitFor(async () => (await store.summary(runId))?.status === 'succeeded');
    expect(await rootEnd(store, runId)).toMatchObject({ output: '3 days in Lisbon' });
  });

  it('404 for a run whose name is not in runs, an unknown interrupt of a stored run, and another run’s interrupt', async () => {
    const scheduler = new VirtualTimeScheduler();
    const store = new MemoryRunStore({ scheduler });
    const trip = tripRuns();
    const { runId, asked } = await askedThenStopped(store, trip.runs, scheduler);
    const other = await askedThenStopped(store, trip.runs, scheduler);
    const stranger = track(createRunRegistry({ store, runs: new Map(), scheduler, ...quiet }));
    expect((await stranger.handleAnswer(runId, post({ interruptId: asked.interruptId, answer: 1 }))).status).toBe(404);
    const second = track(createRunRegistry({ store, runs: trip.runs, scheduler, ...quiet }));
    expect((await second.handleAnswer(runId, post({ interruptId: other.asked.interruptId, answer: 1 }))).status).toBe(404);
    expect((await second.handleAnswer(runId, post({ interruptId: '3b241101-e2bb-4255-8caf-4136c566a962', answer: 1 }))).status).toBe(404);
    expect((await second.handleAnswer('no-such-run', post({ interruptId: asked.interruptId, answer: 1 }))).status).toBe(404);
    // None of those resumed anything.
    expect(second.has(runId) || second.has(other.runId)).toBe(false);
  });

  it('a viewer of a restarted server reads the open interrupt from the journal', async () => {
    const scheduler = new VirtualTimeScheduler();
    const store = new MemoryRunStore({ scheduler });
    const trip = tripRuns();
    const { runId, asked } = await askedThenStopped(store, trip.runs, scheduler);
    const viewerOnly = track(createRunRegistry({ store, scheduler, pollMs: Infinity, ...quiet }));
    expect(await viewerOnly.pending(runId)).toEqual([asked]);
    expect(await viewerOnly.pending('no-such-run')).toEqual([]);
    const text = await (await viewerOnly.response(runId, new Request('http://x'))).text();
    expect(text).toContain(`"interruptId":"${asked.interruptId}"`);
    expect(text).toContain('event: interrupt\n');
  });
});
