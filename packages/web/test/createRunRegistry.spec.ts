import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { map, NEVER, Observable, of, Subject } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { ConfigError, invoke$, serializeError, type RunEvent } from '@rxagents/core';
import { createRunRegistry, ReplayGapError, RunRegistryFullError, type RunRegistry } from '@rxagents/web';
import { countingAgent } from './helpers/agents';

async function frames(response: Response): Promise<EventSourceMessage[]> {
  const messages: EventSourceMessage[] = [];
  createParser({ onEvent: (message) => messages.push(message) }).feed(await response.text());
  return messages;
}

const watch = (url: string, lastEventId?: string): Request => new Request(url, lastEventId === undefined ? {} : { headers: { 'last-event-id': lastEventId } });

/** A run's events, fed by hand: `emit` sends one, `end` completes. */
function manualRun(): { events$: Subject<RunEvent>; emit: (i: number) => void; end: () => void; unsubscribed: () => boolean } {
  const events$ = new Subject<RunEvent>();
  const emit = (i: number): void =>
    events$.next({ type: 'text-delta', runId: 'r', callId: 'c', parentCallId: null, at: i, agentId: 'a', delta: `d${i} ` });
  return { events$, emit, end: () => events$.complete(), unsubscribed: () => !events$.observed };
}

describe('createRunRegistry', () => {
  const registries: RunRegistry[] = [];
  const track = (registry: RunRegistry): RunRegistry => (registries.push(registry), registry);
  afterEach(() => registries.splice(0).forEach((registry) => registry.close()));

  it('a late viewer gets every event so far, then the rest; two viewers get identical streams', async () => {
    const registry = track(createRunRegistry());
    const run = manualRun();
    const { runId } = registry.start(run.events$);
    for (let i = 0; i < 3; i++) run.emit(i);
    const first = frames(registry.response(runId, watch('http://x/runs')));
    for (let i = 3; i < 5; i++) run.emit(i);
    const second = frames(registry.response(runId, watch('http://x/runs')));
    run.end();
    const [a, b] = await Promise.all([first, second]);
    expect(a.map((m) => m.id)).toEqual(['0', '1', '2', '3', '4']);
    expect(b).toEqual(a);
    expect(a.map((m) => (JSON.parse(m.data) as { delta: string }).delta).join('')).toBe('d0 d1 d2 d3 d4 ');
  });

  it('Last-Event-ID (header or query) resumes after that event: no gap, no duplicate', async () => {
    const registry = track(createRunRegistry());
    const run = manualRun();
    const { runId } = registry.start(run.events$);
    for (let i = 0; i < 6; i++) run.emit(i);
    run.end();
    expect((await frames(registry.response(runId, watch('http://x', '3')))).map((m) => m.id)).toEqual(['4', '5']);
    expect((await frames(registry.response(runId, watch('http://x/?lastEventId=0')))).map((m) => m.id)).toEqual(['1', '2', '3', '4', '5']);
    expect(await frames(registry.response(runId, watch('http://x', '5')))).toEqual([]);
  });

  it('an id the run never had is a 400, an unknown run a 404', async () => {
    const registry = track(createRunRegistry());
    const run = manualRun();
    const { runId } = registry.start(run.events$);
    run.emit(0);
    expect(registry.response(runId, watch('http://x', '1')).status).toBe(400);
    expect(registry.response(runId, watch('http://x', 'abc')).status).toBe(400);
    expect(registry.response('no-such-run', watch('http://x')).status).toBe(404);
    expect(registry.has(runId)).toBe(true);
    registry.cancel(runId);
  });

  it('a 400 for a bad Last-Event-ID echoes nothing of it', async () => {
    const registry = track(createRunRegistry());
    const run = manualRun();
    const { runId } = registry.start(run.events$);
    run.emit(0);
    const answers = await Promise.all(['<img src=x onerror=steal()>', '99999', '1'].map((id) => registry.response(runId, watch('http://x', id)).text()));
    for (const answer of answers) expect(answer).toBe('Last-Event-ID is not an event of this run');
    const byQuery = registry.response(runId, watch('http://x/?lastEventId=%3Cscript%3Esteal()'));
    expect(byQuery.status).toBe(400);
    expect(await byQuery.text()).not.toContain('steal');
  });

  it("sends viewers an error's name and code with a generic message, its details only with exposeError", async () => {
    const secret = 'connect ECONNREFUSED 10.0.4.2:6379';
    const failingRun = () =>
      new Observable<RunEvent>((subscriber) => {
        subscriber.next({ type: 'call-error', runId: 'r', callId: 'c', parentCallId: null, at: 0, agentId: 'a', error: serializeError(new Error(secret)), durationMs: 1 });
        subscriber.error(Object.assign(new Error(secret), { code: 'ECONNREFUSED' }));
      });
    const redacted = track(createRunRegistry());
    const { runId } = redacted.start(failingRun());
    const seen = await frames(redacted.response(runId, watch('http://x')));
    expect(seen.map((m) => m.event)).toEqual(['call-error', 'error']);
    expect(seen.map((m) => m.data).join('\n')).not.toContain('10.0.4.2');
    expect(JSON.parse(seen[1]?.data ?? '')).toEqual({ name: 'Error', message: 'An error occurred on the server', code: 'ECONNREFUSED' });

    const detailed = track(createRunRegistry({ exposeError: (error) => error }));
    const second = detailed.start(failingRun()).runId;
    expect((await frames(detailed.response(second, watch('http://x')))).map((m) => m.data.includes('10.0.4.2'))).toEqual([true, true]);
    expect(() => createRunRegistry({ exposeError: true as never })).toThrow(/exposeError/);
  });

  it('keeps the message of a REPLAY_GAP and says only "cancelled" of a cancelled run', async () => {
    const registry = track(createRunRegistry({ replayLimit: 2 }));
    const run = manualRun();
    const { runId } = registry.start(run.events$);
    for (let i = 0; i < 5; i++) run.emit(i);
    const gap = await frames(registry.response(runId, watch('http://x', '0')));
    expect(JSON.parse(gap.at(-1)?.data ?? '')).toMatchObject({ code: 'REPLAY_GAP', message: new ReplayGapError(1, 3).message });
    registry.cancel(runId);
    const cancelled = await frames(registry.response(runId, watch('http://x', '4')));
    expect(JSON.parse(cancelled.at(-1)?.data ?? '')).toEqual({ name: 'AbortError', message: 'The operation was cancelled' });
  });

  it('a viewer asking for an event older than the replay buffer gets a REPLAY_GAP error frame', async () => {
    const registry = track(createRunRegistry({ replayLimit: 3 }));
    const run = manualRun();
    const { runId } = registry.start(run.events$);
    for (let i = 0; i < 10; i++) run.emit(i);
    run.end();
    const late = await frames(registry.response(runId, watch('http://x', '5')));
    expect(late).toEqual([{ id: undefined, event: 'error', data: JSON.stringify(serializeError(new ReplayGapError(6, 7))) }]);
    expect((await frames(registry.response(runId, watch('http://x', '6')))).map((m) => m.id)).toEqual(['7', '8', '9']);
  });

  it('starts a run by name with the registry id as its runId, independent of viewers, and cancel fires AbortSignals', async () => {
    const registry = track(createRunRegistry());
    const { agent, aborted } = countingAgent('writer', Infinity);
    const { runId } = registry.start('story', 'go', (run) => invoke$(agent, 'go', { run }));
    const reader = (registry.response(runId, watch('http://x')).body as ReadableStream<Uint8Array>).getReader();
    const events = await frames(new Response((await reader.read()).value as Uint8Array<ArrayBuffer>));
    await reader.cancel();
    expect(JSON.parse(events[0]?.data ?? '')).toMatchObject({ type: 'run-start', runId, name: 'story' });
    // The viewer left; the run goes on.
    expect(registry.cancel(runId)).toBe(true);
    await aborted;
    expect(registry.cancel(runId)).toBe(false);
    const after = await frames(registry.response(runId, watch('http://x', '0')));
    expect(after.at(-1)).toMatchObject({ event: 'run-end' });
    expect(JSON.parse(after.at(-1)?.data ?? '')).toMatchObject({ success: false, error: { name: 'AbortError' } });
  });

  it('a finished run expires after ttlMs on the scheduler (404), a running one never does', () => {
    const testScheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
    testScheduler.run(({ cold, expectObservable }) => {
      const registry = createRunRegistry({ ttlMs: 100, scheduler: testScheduler });
      const event: RunEvent = { type: 'custom', runId: 'r', callId: 'c', parentCallId: null, at: 0, name: 'n', data: null };
      const finished = registry.start(cold<RunEvent>('--a|', { a: event })).runId;
      const running = registry.start(NEVER).runId;
      const status = (runId: string) => (): number => registry.response(runId, watch('http://x')).status;
      const at = (runId: string) => cold('s 101ms s - s 1000ms s|').pipe(map(status(runId)));
      expectObservable(at(finished)).toBe('a 101ms a - b 1000ms b|', { a: 200, b: 404 });
      expectObservable(at(running)).toBe('a 101ms a - a 1000ms a|', { a: 200 });
    });
  });

  it('holds at most maxRuns: a finished run makes room, all running is a RunRegistryFullError', () => {
    const registry = track(createRunRegistry({ maxRuns: 2 }));
    const a = registry.start(of<RunEvent>());
    const b = registry.start(NEVER);
    const c = registry.start(NEVER);
    expect(registry.has(a.runId)).toBe(false);
    expect(registry.has(b.runId) && registry.has(c.runId)).toBe(true);
    expect(() => registry.start(NEVER)).toThrow(RunRegistryFullError);
    registry.close();
    expect(registry.has(b.runId) || registry.has(c.runId)).toBe(false);
  });

  it('a value that cannot be written, even one given while the run starts, ends the run: it is unsubscribed and nothing after it is kept', async () => {
    const registry = track(createRunRegistry());
    const event = (data: unknown): RunEvent => ({ type: 'custom', runId: 'r', callId: 'c', parentCallId: null, at: 0, name: 'n', data }) as RunEvent;
    let unsubscribed = false;
    // An event JSON cannot write (a BigInt) among the ones a run gives synchronously, as it is subscribed.
    const events$ = new Observable<RunEvent>((subscriber) => {
      subscriber.next(event('before'));
      subscriber.next(event(10n));
      subscriber.next(event('after'));
      return () => (unsubscribed = true);
    });
    const { runId } = registry.start(events$);
    expect(unsubscribed).toBe(true);
    const seen = await frames(registry.response(runId, watch('http://x')));
    expect(seen.map((message) => message.event)).toEqual(['custom', 'error']);
    expect(JSON.parse(seen[0]?.data ?? '')).toMatchObject({ data: 'before' });
    expect(JSON.parse(seen[1]?.data ?? '')).toMatchObject({ name: 'TypeError' });
  });

  it('refuses bad options with a ConfigError naming the field', () => {
    expect(() => createRunRegistry({ replayLimit: 0 })).toThrow(/replayLimit/);
    expect(() => createRunRegistry({ ttlMs: -5 })).toThrow(ConfigError);
    expect(() => createRunRegistry({ maxRuns: 1.5 })).toThrow(/maxRuns/);
  });
});
