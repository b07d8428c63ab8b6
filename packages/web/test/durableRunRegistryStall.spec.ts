import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EventSourceMessage } from 'eventsource-parser';
import { filter, first } from 'rxjs';
import { pendingInterrupts$, type RunEvent, type RunEventOf } from '@rxagents/core';
import { FileRunStore } from '@rxagents/core/file-store';
import { createRunRegistry, type DurableRunRegistry } from '@rxagents/web';
import { post } from './helpers/answers';
import { readerOf, watch } from './helpers/durable';
import { serve } from './helpers/serve';
import { askingTrip, answersFromAnotherProcess, blockEventLoop, eventually, journal, rootEnd, tripRuns } from './helpers/stall';

/** A lease short enough that a busy loop of a few times it outlasts it (real time: the stall is real). */
const LEASE_TTL_MS = 100;
const quiet = { heartbeatMs: Infinity, stallTimeoutMs: Infinity, reopenTimeoutMs: 5_000 } as const;
const parsed = (message: EventSourceMessage): RunEvent => JSON.parse(message.data) as RunEvent;

jest.setTimeout(30_000);

describe('a durable run registry whose event loop is blocked longer than the lease while a question waits', () => {
  let directory: string;
  let store: FileRunStore;
  let registry: DurableRunRegistry;
  let trip: ReturnType<typeof tripRuns>;

  beforeEach(async () => {
    directory = await mkdtemp(join(tmpdir(), 'rxagents-stall-'));
    store = new FileRunStore({ directory });
    trip = tripRuns();
    registry = createRunRegistry({ store, runs: trip.runs, leaseTtlMs: LEASE_TTL_MS, ...quiet });
  });
  afterEach(async () => {
    registry.close();
    await rm(directory, { recursive: true, force: true });
  });

  /** A run of `trip` that asked its question, the question journaled. */
  const asking = () => askingTrip(registry, store);

  async function completedWith(runId: string, output: string): Promise<void> {
    await eventually(async () => (await store.summary(runId))?.status !== 'running');
    expect(await rootEnd(store, runId)).toMatchObject({ success: true, output });
    expect(await registry.pending(runId)).toEqual([]);
  }

  it('an answer taken just before the stall is applied: the run completes with it', async () => {
    const { runId, asked } = await asking();
    await registry.answer(runId, asked.interruptId, 5);
    blockEventLoop(LEASE_TTL_MS * 3);
    await completedWith(runId, '5 days in Lisbon');
  });

  it('an answer posted during the stall (it waits in the socket) is taken: 204, and the run completes with it', async () => {
    const { runId, asked } = await asking();
    const server = await serve((request) => registry.handleAnswer(runId, request));
    const marker = join(directory, 'sent');
    try {
      const page = answersFromAnotherProcess(server.url, [{ path: '/answer', body: JSON.stringify({ interruptId: asked.interruptId, answer: 6 }) }], marker);
      await page.ready;
      page.go();
      // Blocked until the other process has sent its answer too (a few seconds at most).
      const cap = Date.now() + 5_000;
      blockEventLoop(LEASE_TTL_MS * 3, () => existsSync(marker) || Date.now() > cap);
      expect(existsSync(marker)).toBe(true);
      expect(await page.statuses).toEqual(['HTTP/1.1 204 No Content']);
      await completedWith(runId, '6 days in Lisbon');
    } finally {
      await server.close();
    }
  });

  it('an answer posted after the stall is taken: 204, the run completes with it, and a viewer that watched throughout sees one story', async () => {
    const { runId, asked } = await asking();
    const viewer = readerOf((await registry.response(runId, watch())).body);
    const before = await viewer.until((message) => parsed(message).type === 'interrupt');
    blockEventLoop(LEASE_TTL_MS * 3);
    await new Promise((resolve) => setTimeout(resolve, LEASE_TTL_MS));
    const response = await registry.handleAnswer(runId, post({ interruptId: asked.interruptId, answer: 7 }));
    expect(response.status).toBe(204);
    await completedWith(runId, '7 days in Lisbon');
    // The viewer was not told the run ended when it stopped: it read on, through the resume, to the end.
    const rest = await viewer.until((message) => {
      const event = parsed(message);
      return event.type === 'run-end' && event.parentCallId === null;
    });
    const seen = [...before, ...rest];
    expect(seen.map((message) => message.id)).toEqual(seen.map((_, i) => String(i)));
    const recorded = await journal(store, runId);
    expect(seen.map((message) => [parsed(message).type, parsed(message).callId])).toEqual(recorded.map((event) => [event.type, event.callId]));
    expect(seen.map(parsed).filter((event) => event.type === 'run-end' && event.parentCallId === null)).toEqual([expect.objectContaining({ success: true })]);
  });

  it.each([
    ['its run had journaled nothing yet', false],
    ['its call was journaled', true],
  ])('a question the stall caught before it was journaled (%s) is answered under the id the page was shown', async (_, callJournaled) => {
    if (callJournaled) trip.hold();
    const { runId } = registry.start('trip', 'Porto');
    if (callJournaled) await eventually(async () => (await journal(store, runId)).some((event) => event.type === 'call-start'));
    // Blocked as the question opens, before the store could take it.
    const question = new Promise<RunEventOf<'interrupt'>>((resolve) =>
      pendingInterrupts$(runId)
        .pipe(
          filter((open) => open.length > 0),
          first(),
        )
        .subscribe((open) => {
          blockEventLoop(LEASE_TTL_MS * 3);
          resolve(open[0] as RunEventOf<'interrupt'>);
        }),
    );
    if (callJournaled) trip.release();
    const asked = await question;
    await new Promise((resolve) => setTimeout(resolve, LEASE_TTL_MS));
    const response = await registry.handleAnswer(runId, post({ interruptId: asked.interruptId, answer: 3 }));
    expect(response.status).toBe(204);
    await completedWith(runId, '3 days in Porto');
  });
});
