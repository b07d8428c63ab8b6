import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { NEVER, Subject, VirtualTimeScheduler } from 'rxjs';
import { serializeError, type RunEvent } from '@rxagents/core';
import { createRunRegistry, RunForgottenError, type RunForgottenReason, type RunRegistry } from '@rxagents/web';

const delta = (i: number, text = `d${i} `): RunEvent => ({ type: 'text-delta', runId: 'r', callId: 'c', parentCallId: null, at: i, agentId: 'a', delta: text });
const watch = (): Request => new Request('http://x/runs');

/** Every chunk a body gives, as it gives them. */
async function chunksOf(response: Response): Promise<Uint8Array[]> {
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const chunks: Uint8Array[] = [];
  for (let next = await reader.read(); !next.done; next = await reader.read()) chunks.push(next.value);
  return chunks;
}

function parse(chunks: readonly Uint8Array[]): EventSourceMessage[] {
  const messages: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (message) => messages.push(message) });
  const decoder = new TextDecoder();
  for (const chunk of chunks) parser.feed(decoder.decode(chunk, { stream: true }));
  return messages;
}

/** Runs the virtual clock up to `frame` ms. */
function advance(scheduler: VirtualTimeScheduler, frame: number): void {
  scheduler.schedule(() => undefined, frame - scheduler.now());
  scheduler.maxFrames = frame;
  scheduler.flush();
}

describe('createRunRegistry memory', () => {
  it('late viewers read the run in chunks of at most 64 KiB (a longer event alone), from bytes they all share', async () => {
    const registry = createRunRegistry();
    const events$ = new Subject<RunEvent>();
    const { runId } = registry.start(events$);
    for (let i = 0; i < 3_000; i++) events$.next(delta(i, i === 1_500 ? 'x'.repeat(100_000) : `d${i} `));
    events$.complete();
    const [first, second] = await Promise.all([chunksOf(registry.response(runId, watch())), chunksOf(registry.response(runId, watch()))]);
    const messages = parse(first as Uint8Array[]);
    expect(messages.map((m) => m.id)).toEqual(Array.from({ length: 3_000 }, (_, i) => String(i)));
    expect(parse(second as Uint8Array[])).toEqual(messages);
    const long = (first as Uint8Array[]).filter((chunk) => chunk.byteLength > 64 * 1024);
    expect(long).toHaveLength(1);
    expect(parse(long).map((m) => m.id)).toEqual(['1500']);
    expect((first as Uint8Array[]).length).toBeGreaterThan(3);
    // The two viewers were handed the same bytes: a viewer costs a cursor, not a copy.
    (first as Uint8Array[]).forEach((chunk, i) => expect(chunk.buffer).toBe((second as Uint8Array[])[i]?.buffer));
    registry.close();
  });

  it('Last-Event-ID still resumes exactly in the middle of a shared chunk', async () => {
    const registry = createRunRegistry();
    const events$ = new Subject<RunEvent>();
    const { runId } = registry.start(events$);
    for (let i = 0; i < 50; i++) events$.next(delta(i));
    events$.complete();
    const rest = parse(await chunksOf(registry.response(runId, new Request('http://x', { headers: { 'last-event-id': '31' } }))));
    expect(rest.map((m) => m.id)).toEqual(Array.from({ length: 18 }, (_, i) => String(32 + i)));
    registry.close();
  });

  const forgetting: [RunForgottenReason, (registry: RunRegistry, scheduler: VirtualTimeScheduler) => void][] = [
    ['expired', (_, scheduler) => advance(scheduler, 1_001)],
    ['evicted', (registry) => registry.start(NEVER)],
    ['closed', (registry) => registry.close()],
  ];
  it.each(forgetting)('a viewer still reading a run the registry lets go of (%s) gets RUN_FORGOTTEN, and no more of the run', async (reason, forget) => {
    const scheduler = new VirtualTimeScheduler();
    const registry = createRunRegistry({ ttlMs: 1_000, maxRuns: 1, stallTimeoutMs: Infinity, heartbeatMs: Infinity, scheduler });
    const events$ = new Subject<RunEvent>();
    const { runId } = registry.start(events$);
    // A run of about 1 MB, finished: a viewer reads its first chunk and stops reading.
    for (let i = 0; i < 100; i++) events$.next(delta(i, 'y'.repeat(10_000)));
    events$.complete();
    const reader = (registry.response(runId, watch()).body as ReadableStream<Uint8Array>).getReader();
    const first = await reader.read();
    const seen = parse([first.value as Uint8Array]).length;
    expect(seen).toBeLessThan(10);
    forget(registry, scheduler);
    expect(registry.has(runId)).toBe(false);
    // What it reads now is the end: the run's other events are no longer held for it.
    const rest: Uint8Array[] = [];
    for (let next = await reader.read(); !next.done; next = await reader.read()) rest.push(next.value);
    expect(parse(rest)).toEqual([{ id: undefined, event: 'error', data: JSON.stringify(serializeError(new RunForgottenError(reason))) }]);
    registry.close();
  });
});
