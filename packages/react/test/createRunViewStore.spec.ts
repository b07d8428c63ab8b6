import { animationFrameScheduler, Observable, queueScheduler, Subject, VirtualTimeScheduler } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { ConfigError, type RunEvent } from '@rxagents/core';
import { EventStreamError } from '@rxagents/web/client';
import { createRunViewStore, type RunViewState } from '@rxagents/react';

const base = { runId: 'r', at: 0 } as const;
const runStart: RunEvent = { type: 'run-start', ...base, callId: 'root', parentCallId: null, name: 'story', input: 'go' };
const callStart: RunEvent = { type: 'call-start', ...base, callId: 'c1', parentCallId: 'root', agentId: 'writer', input: 'go' };
const delta = (text: string): RunEvent => ({ type: 'text-delta', ...base, callId: 'c1', parentCallId: 'root', agentId: 'writer', delta: text });
const runEnd: RunEvent = { type: 'run-end', ...base, callId: 'root', parentCallId: null, success: true, durationMs: 1 };

/** Resolves after the tasks queued on `asapScheduler` so far have run (a store stops reading there). */
const nextTask = () => new Promise<void>((resolve) => setImmediate(resolve));

/** An Observable that counts its subscriptions and teardowns, fed by the returned subject. */
function counted() {
  const events = new Subject<RunEvent>();
  const counts = { subscribed: 0, unsubscribed: 0 };
  const events$ = new Observable<RunEvent>((subscriber) => {
    counts.subscribed++;
    const inner = events.subscribe(subscriber);
    return () => {
      counts.unsubscribed++;
      inner.unsubscribe();
    };
  });
  return { events, counts, events$ };
}

describe('createRunViewStore', () => {
  it('reads nothing until the first listener, then folds each event into the view: connecting, live, ended', () => {
    const { events, counts, events$ } = counted();
    const store = createRunViewStore(events$, { frameScheduler: queueScheduler });
    expect(counts.subscribed).toBe(0);
    expect(store.getSnapshot()).toEqual({ view: expect.objectContaining({ status: 'idle' }), error: undefined, status: 'connecting', connection: undefined });

    const seen: RunViewState[] = [];
    store.subscribe(() => seen.push(store.getSnapshot()));
    expect(counts.subscribed).toBe(1);
    events.next(runStart);
    events.next(callStart);
    events.next(delta('Once '));
    events.next(delta('upon'));
    expect(store.getSnapshot().status).toBe('live');
    expect(store.getSnapshot().view.nodes[1]?.text).toBe('Once upon');
    events.next(runEnd);
    events.complete();
    expect(seen.map((state) => state.status)).toEqual(['live', 'live', 'live', 'live', 'live', 'ended']);
    expect(store.getSnapshot().view.status).toBe('completed');
    // Nothing changed: the same snapshot, as useSyncExternalStore requires.
    expect(store.getSnapshot()).toBe(seen[seen.length - 1]);
  });

  it('tells its listeners once per animation frame, with the latest view', () => {
    new TestScheduler((actual, expected) => expect(actual).toEqual(expected)).run(({ animate, cold, flush }) => {
      animate('---x------x');
      const events$ = cold<RunEvent>('ab(cd)-e|', { a: runStart, b: callStart, c: delta('Once '), d: delta('upon'), e: runEnd });
      const store = createRunViewStore(events$, { frameScheduler: animationFrameScheduler });
      const seen: string[] = [];
      store.subscribe(() => {
        const { status, view } = store.getSnapshot();
        seen.push(`${status}:${view.nodes[1]?.text ?? '-'}`);
      });
      flush();
      // Four events before the first frame (3), one and the end before the second (10): two renders.
      expect(seen).toEqual(['live:Once upon', 'ended:Once upon']);
    });
  });

  it('stops reading once the last listener left, after the current task, not before', async () => {
    const { counts, events$ } = counted();
    const store = createRunViewStore(events$, { frameScheduler: queueScheduler });
    const first = store.subscribe(() => undefined);
    const second = store.subscribe(() => undefined);
    first();
    second();
    expect(counts.unsubscribed).toBe(0);
    await nextTask();
    expect(counts).toEqual({ subscribed: 1, unsubscribed: 1 });
  });

  it("reads a run once when a listener leaves and comes back in the same task (React StrictMode's second mount)", async () => {
    const { events, counts, events$ } = counted();
    const store = createRunViewStore(events$, { frameScheduler: queueScheduler });
    store.subscribe(() => undefined)();
    store.subscribe(() => undefined);
    events.next(runStart);
    await nextTask();
    expect(counts).toEqual({ subscribed: 1, unsubscribed: 0 });
    expect(store.getSnapshot().view.status).toBe('running');
  });

  it('starts over from an empty view when a listener comes after reading stopped', async () => {
    const { events, counts, events$ } = counted();
    const store = createRunViewStore(events$, { frameScheduler: queueScheduler });
    store.subscribe(() => undefined)();
    events.next(runStart);
    await nextTask();
    store.subscribe(() => undefined);
    expect(counts.subscribed).toBe(2);
    expect(store.getSnapshot().status).toBe('connecting');
    expect(store.getSnapshot().view.nodes).toEqual([]);
  });

  it('surfaces an error with the view as far as it was read; a value that is not an Error is wrapped', () => {
    const events = new Subject<RunEvent>();
    const store = createRunViewStore(events, { frameScheduler: queueScheduler });
    store.subscribe(() => undefined);
    events.next(runStart);
    events.error('the wire broke');
    const { status, error, view } = store.getSnapshot();
    expect(status).toBe('failed');
    expect(error).toBeInstanceOf(Error);
    expect(error?.message).toBe('the wire broke');
    expect(error?.cause).toBe('the wire broke');
    expect(view.status).toBe('running');
  });

  it('fails on a value that is not an event and stops reading', () => {
    const { events, counts, events$ } = counted();
    const store = createRunViewStore(events$, { frameScheduler: queueScheduler });
    store.subscribe(() => undefined);
    events.next(null as unknown as RunEvent);
    expect(store.getSnapshot().status).toBe('failed');
    expect(store.getSnapshot().error).toBeInstanceOf(ConfigError);
    expect(counts.unsubscribed).toBe(1);
  });

  it('reads a URL with fromEventStream and aborts the fetch when reading stops', async () => {
    let signal: AbortSignal | undefined;
    let requested: string | undefined;
    const encoder = new TextEncoder();
    const fetch: typeof globalThis.fetch = async (input, init) => {
      requested = String(input);
      signal = init?.signal ?? undefined;
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(encoder.encode(`id: 0\ndata: ${JSON.stringify(runStart)}\n\nid: 1\ndata: ${JSON.stringify(callStart)}\n\nid: 2\ndata: ${JSON.stringify(delta('Once'))}\n\n`));
        },
      });
      return new Response(body, { headers: { 'content-type': 'text/event-stream' } });
    };
    const store = createRunViewStore('https://example.com/runs/r/events', { fetch, frameScheduler: queueScheduler });
    const stop = store.subscribe(() => undefined);
    while (store.getSnapshot().view.nodes[1]?.text !== 'Once') await nextTask();
    expect(requested).toBe('https://example.com/runs/r/events');
    stop();
    await nextTask();
    expect(signal?.aborted).toBe(true);
  });

  it('shows a stream that lost its server as reconnecting, with the try and its delay, then live again with no gap', async () => {
    const encoder = new TextEncoder();
    const frames = (from: number, events: readonly RunEvent[]): Uint8Array => encoder.encode(events.map((event, i) => `id: ${from + i}\ndata: ${JSON.stringify(event)}\n\n`).join(''));
    const asked: (string | null)[] = [];
    // Answers the run's start and ends (the server went away), refuses the next connection (it is
    // restarting), then answers from the last id on.
    const fetch: typeof globalThis.fetch = async (_input, init) => {
      asked.push(new Headers(init?.headers).get('last-event-id'));
      if (asked.length === 2) throw new TypeError('fetch failed');
      const body = asked.length === 1 ? frames(0, [runStart, callStart]) : frames(2, [delta('Once'), runEnd]);
      return new Response(new Blob([body as Uint8Array<ArrayBuffer>]).stream(), { headers: { 'content-type': 'text/event-stream' } });
    };
    const scheduler = new VirtualTimeScheduler();
    const store = createRunViewStore('https://example.com/runs/r/events', { fetch, scheduler, retry: { jitter: 0 }, frameScheduler: queueScheduler });
    const seen: string[] = [];
    store.subscribe(() => {
      const { status, connection } = store.getSnapshot();
      const line = `${status} ${connection?.state ?? '-'}${connection?.state === 'reconnecting' ? ` ${connection.attempt} in ${connection.delayMs}` : ''}`;
      if (seen.at(-1) !== line) seen.push(line);
    });
    while (store.getSnapshot().status !== 'ended' && store.getSnapshot().status !== 'failed') {
      await nextTask();
      scheduler.flush();
    }
    expect(seen).toEqual(['connecting connected', 'live connected', 'reconnecting reconnecting 1 in 1000', 'reconnecting reconnecting 2 in 2000', 'live connected', 'ended connected']);
    expect(asked).toEqual([null, '1', '1']);
    expect(store.getSnapshot().view.nodes[1]?.text).toBe('Once');
  });

  it("surfaces the stream's errors: a server that does not answer with an event stream", async () => {
    const fetch: typeof globalThis.fetch = async () => new Response('gone', { status: 404 });
    const store = createRunViewStore('https://example.com/runs/r/events', { fetch, frameScheduler: queueScheduler });
    store.subscribe(() => undefined);
    while (store.getSnapshot().status === 'connecting') await nextTask();
    expect(store.getSnapshot().error).toBeInstanceOf(EventStreamError);
    expect((store.getSnapshot().error as EventStreamError).code).toBe('EVENT_STREAM_STATUS');
  });

  it('refuses a bad source and bad options with a ConfigError naming them', () => {
    expect(() => createRunViewStore(42 as never)).toThrow(/createRunViewStore: source must be a URL, a Request, a Response or an Observable of run events/);
    expect(() => createRunViewStore('/run', { retry: { delayMs: Infinity }, frameScheduler: 'raf' } as never)).toThrow(
      /retry\.delayMs must be a finite number of milliseconds.*frameScheduler must be an RxJS scheduler/,
    );
    expect(() => createRunViewStore('/run', { retyr: {} } as never)).toThrow(/retyr is not a known option \(did you mean retry\?\)/);
  });
});
