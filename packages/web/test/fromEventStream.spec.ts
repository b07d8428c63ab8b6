import { lastValueFrom, Subject, toArray } from 'rxjs';
import { z } from 'zod';
import { ConfigError, type RunEvent } from '@rxagents/core';
import { createRunRegistry, EventStreamError, fromEventStream, RemoteRunError, toEventStreamResponse } from '@rxagents/web';
import { serve } from './helpers/serve';

const base = { runId: 'r', callId: 'c', parentCallId: null, at: 0 } as const;
const delta = (i: number): RunEvent => ({ type: 'text-delta', ...base, agentId: 'a', delta: `d${i} ` });
const runEnd: RunEvent = { type: 'run-end', ...base, success: true, durationMs: 1 };

/** A registry run fed by hand, served at `/runs/<id>`; `cut` makes the next response end after the frames already written. */
async function servedRun(): Promise<{ url: string; events$: Subject<RunEvent>; cutNext: () => void; requests: Request[]; close: () => Promise<void> }> {
  const registry = createRunRegistry();
  const events$ = new Subject<RunEvent>();
  const { runId } = registry.start(events$);
  closers.push(async () => registry.close());
  const requests: Request[] = [];
  let cut = false;
  const server = await serve((request) => {
    requests.push(request);
    const id = new URL(request.url).pathname.split('/').at(-1) ?? '';
    const response = registry.response(id, request);
    if (!cut || response.body === null) return response;
    cut = false;
    // The connection breaks after the first chunk: the frames so far arrive, then the body just ends.
    const reader = response.body.getReader();
    const body = new ReadableStream<Uint8Array>({
      pull: async (controller) => {
        const { value } = await reader.read();
        if (value !== undefined) controller.enqueue(value);
        await reader.cancel();
        controller.close();
      },
    });
    return new Response(body, { headers: response.headers });
  });
  return { url: `${server.url}/runs/${runId}`, events$, cutNext: () => (cut = true), requests, close: server.close };
}

const closers: (() => Promise<void>)[] = [];

describe('fromEventStream over a loopback server', () => {
  afterEach(async () => {
    await Promise.all(closers.splice(0).map((close) => close()));
  });

  it('reconnects after a dropped connection with Last-Event-ID: no gap, no duplicate, then completes at run-end', async () => {
    const run = await servedRun();
    closers.push(run.close);
    run.cutNext();
    const seen: RunEvent[] = [];
    const done = lastValueFrom(fromEventStream(run.url, { retry: { delayMs: 0, maxAttempts: 3 } }).pipe(toArray()));
    // Events 0..2 reach the first connection, which then drops; 3..5 and the end come after the reconnection.
    await new Promise<void>((resolve) => {
      const waitForViewer = (): void => (run.events$.observed && run.requests.length === 1 ? resolve() : void setTimeout(waitForViewer, 5));
      waitForViewer();
    });
    for (let i = 0; i < 3; i++) run.events$.next(delta(i));
    await new Promise<void>((resolve) => {
      const waitForReconnect = (): void => (run.requests.length === 2 ? resolve() : void setTimeout(waitForReconnect, 5));
      waitForReconnect();
    });
    for (let i = 3; i < 6; i++) run.events$.next(delta(i));
    run.events$.next(runEnd);
    seen.push(...(await done));
    expect(run.requests[1]?.headers.get('last-event-id')).toBe('2');
    expect(seen.map((e) => (e.type === 'text-delta' ? e.delta : e.type)).join('')).toBe('d0 d1 d2 d3 d4 d5 run-end');
  });

  it('two viewers of a registry run get identical streams', async () => {
    const run = await servedRun();
    closers.push(run.close);
    for (let i = 0; i < 4; i++) run.events$.next(delta(i));
    const first = lastValueFrom(fromEventStream(run.url).pipe(toArray()));
    const second = lastValueFrom(fromEventStream(run.url).pipe(toArray()));
    await new Promise<void>((resolve) => {
      const both = (): void => (run.requests.length === 2 ? resolve() : void setTimeout(both, 5));
      both();
    });
    run.events$.next(delta(4));
    run.events$.next(runEnd);
    const [a, b] = await Promise.all([first, second]);
    expect(a).toHaveLength(6);
    expect(b).toEqual(a);
  });

  it('an unknown run is an EVENT_STREAM_STATUS error with the status', async () => {
    const registry = createRunRegistry();
    closers.push(async () => registry.close());
    const server = await serve((request) => registry.response('nope', request));
    closers.push(server.close);
    const error = await lastValueFrom(fromEventStream(`${server.url}/runs/nope`)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EventStreamError);
    expect(error).toMatchObject({ code: 'EVENT_STREAM_STATUS', context: { status: 404 }, retryable: false });
  });

  it('a REPLAY_GAP error frame reaches the client as a RemoteRunError with that code', async () => {
    const registry = createRunRegistry({ replayLimit: 2 });
    closers.push(async () => registry.close());
    const events$ = new Subject<RunEvent>();
    const { runId } = registry.start(events$);
    for (let i = 0; i < 5; i++) events$.next(delta(i));
    const server = await serve((request) => registry.response(runId, request));
    closers.push(server.close);
    const error = await lastValueFrom(fromEventStream(server.url)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RemoteRunError);
    expect(error).toMatchObject({ name: 'ReplayGapError', code: 'REPLAY_GAP' });
  });

  it.each([
    ['data that is not JSON', 'id: 1\nevent: text-delta\ndata: {oops\n\n', /not JSON/],
    ['an event that does not match RunEventSchema', `id: 1\ndata: ${JSON.stringify({ ...delta(0), extra: 1 })}\n\n`, /does not match the schema/],
    ['an error frame without a message', 'event: error\ndata: {"name":"X"}\n\n', /error frame/],
  ])('a server sending %s is an EVENT_STREAM_BAD_FRAME error, after the good events before it', async (_, bad, message) => {
    const server = await serve(
      () => new Response(`id: 0\ndata: ${JSON.stringify(delta(0))}\n\n${bad}`, { headers: { 'content-type': 'text/event-stream' } }),
    );
    closers.push(server.close);
    const seen: RunEvent[] = [];
    const error = await new Promise((resolve) => fromEventStream(server.url).subscribe({ next: (e) => seen.push(e), error: resolve }));
    expect(seen).toEqual([delta(0)]);
    expect(error).toBeInstanceOf(EventStreamError);
    expect(error).toMatchObject({ code: 'EVENT_STREAM_BAD_FRAME', message: expect.stringMatching(message) as unknown });
  });

  it('an answer that is not an event stream is an EVENT_STREAM_STATUS error', async () => {
    const server = await serve(() => new Response('<html>', { headers: { 'content-type': 'text/html' } }));
    closers.push(server.close);
    await expect(lastValueFrom(fromEventStream(server.url))).rejects.toMatchObject({ code: 'EVENT_STREAM_STATUS', message: expect.stringMatching(/text\/html/) as unknown });
  });

  it('a stream that keeps dropping errors with EVENT_STREAM_DROPPED after maxAttempts reconnections', async () => {
    let requests = 0;
    const server = await serve(() => {
      requests++;
      return new Response(`id: 0\ndata: ${JSON.stringify(delta(0))}\n\n`, { headers: { 'content-type': 'text/event-stream' } });
    });
    closers.push(server.close);
    // Each connection repeats event 0 and ends early: the duplicate is skipped, so no attempt gets anywhere.
    const seen: RunEvent[] = [];
    const error = await new Promise((resolve) =>
      fromEventStream(server.url, { retry: { delayMs: 0, maxAttempts: 2 } }).subscribe({ next: (e) => seen.push(e), error: resolve }),
    );
    expect(error).toMatchObject({ code: 'EVENT_STREAM_DROPPED', retryable: true });
    expect(requests).toBe(3);
    expect(seen).toEqual([delta(0)]);
  });

  it('a dropped stream whose last event id cannot go back in a Last-Event-ID header errors at once, naming the id, without retrying', async () => {
    for (const id of ['run-€-1', ' padded ']) {
      let connections = 0;
      const answer: typeof fetch = async () => {
        connections++;
        return new Response(`id: ${id}\ndata: ${JSON.stringify(delta(0))}\n\n`, { headers: { 'content-type': 'text/event-stream' } });
      };
      const seen: RunEvent[] = [];
      const error = await new Promise((resolve) =>
        fromEventStream('http://localhost/story', { fetch: answer, retry: { delayMs: 0, maxAttempts: 3 } }).subscribe({ next: (e) => seen.push(e), error: resolve }),
      );
      expect(error).toMatchObject({ code: 'EVENT_STREAM_DROPPED', message: expect.stringContaining(`cannot be resumed: the server's last event id (${JSON.stringify(id)})`) as unknown });
      expect([connections, seen]).toEqual([1, [delta(0)]]);
    }
  });

  it('a Request with a body is sent again, body and all, when it reconnects, and when subscribed to again', async () => {
    const registry = createRunRegistry();
    closers.push(async () => registry.close());
    const events$ = new Subject<RunEvent>();
    const { runId } = registry.start(events$);
    events$.next(delta(0));
    const sent: { body: string; lastEventId: string | null }[] = [];
    let connections = 0;
    // The first answer breaks off after its first chunk; the others are the registry's own.
    const flaky: typeof fetch = async (input, init) => {
      const request = new Request(input, init);
      sent.push({ body: await request.clone().text(), lastEventId: request.headers.get('last-event-id') });
      const response = registry.response(runId, request);
      if (connections++ > 0 || response.body === null) return response;
      const reader = response.body.getReader();
      const first = await reader.read();
      await reader.cancel();
      return new Response(first.value, { headers: response.headers });
    };
    const request = new Request('http://localhost/runs/1', { method: 'POST', body: '{"question":"ship on Friday?"}' });
    let ended = false;
    const events = lastValueFrom(fromEventStream(request, { fetch: flaky, retry: { delayMs: 0, maxAttempts: 1 } }).pipe(toArray())).finally(() => (ended = true));
    await new Promise<void>((resolve) => {
      const reconnected = (): void => (sent.length === 2 || ended ? resolve() : void setTimeout(reconnected, 5));
      reconnected();
    });
    events$.next(delta(1));
    events$.next(runEnd);
    expect(await events).toEqual([delta(0), delta(1), runEnd]);
    expect(await lastValueFrom(fromEventStream(request, { fetch: flaky }).pipe(toArray()))).toEqual([delta(0), delta(1), runEnd]);
    expect(sent).toEqual([
      { body: '{"question":"ship on Friday?"}', lastEventId: null },
      { body: '{"question":"ship on Friday?"}', lastEventId: '0' },
      { body: '{"question":"ship on Friday?"}', lastEventId: null },
    ]);
  });

  it('a reconnection answered by a new run (a server that kept nothing) errors instead of splicing the two runs', async () => {
    // toEventStreamResponse starts a run per request: each connection gets a run of its own, ids from 0.
    const frames = (runId: string, count: number, end: boolean): string =>
      [
        ...Array.from({ length: count }, (_, i) => ({ ...delta(i), runId, delta: `${runId}${i} ` })),
        ...(end ? [{ ...runEnd, runId }] : []),
      ]
        .map((event, id) => `id: ${id}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`)
        .join('');
    let connections = 0;
    const fresh: typeof fetch = async () =>
      // The first answer breaks off after three events; the second is a new run, which ignores Last-Event-ID.
      new Response(connections++ === 0 ? frames('A', 3, false) : frames('B', 5, true), { headers: { 'content-type': 'text/event-stream' } });
    const seen: RunEvent[] = [];
    const error = await new Promise((resolve, reject) =>
      fromEventStream('http://localhost/story', { fetch: fresh, retry: { delayMs: 0, maxAttempts: 3 } }).subscribe({
        next: (event) => seen.push(event),
        error: resolve,
        complete: () => reject(new Error(`completed with ${seen.map((event) => (event.type === 'text-delta' ? event.delta : event.type)).join('')}`)),
      }),
    );
    expect(seen.map((event) => event.runId)).toEqual(['A', 'A', 'A']);
    expect(error).toBeInstanceOf(EventStreamError);
    expect(error).toMatchObject({ code: 'EVENT_STREAM_DROPPED', retryable: true, message: expect.stringMatching(/new run/) as unknown });
    expect(connections).toBe(2);
  });

  it('a custom schema checks other values, and the stream ending completes them', async () => {
    const server = await serve(() => toEventStreamResponse(new Subject<number>().pipe(), { heartbeatMs: Infinity }));
    closers.push(server.close);
    const numbers = await serve(() => new Response('data: 1\n\ndata: 2\n\n', { headers: { 'content-type': 'text/event-stream' } }));
    closers.push(numbers.close);
    expect(await lastValueFrom(fromEventStream(numbers.url, { schema: z.number() }).pipe(toArray()))).toEqual([1, 2]);
    void server;
  });

  it('reads a Response it is given, and refuses bad input or options with a ConfigError', async () => {
    const response = toEventStreamResponse(new Subject<RunEvent>().pipe((source) => source));
    const subject = new Subject<RunEvent>();
    const events = lastValueFrom(fromEventStream(toEventStreamResponse(subject)).pipe(toArray()));
    subject.next(delta(0));
    subject.next(runEnd);
    expect(await events).toEqual([delta(0), runEnd]);
    await response.body?.cancel();
    expect(() => fromEventStream(42 as never)).toThrow(ConfigError);
    expect(() => fromEventStream('http://x', { retry: { delayMs: -1 } })).toThrow(/retry\.delayMs/);
    expect(() => fromEventStream('http://x', { maxFrameLength: 0 })).toThrow(/maxFrameLength/);
    expect(() => fromEventStream('http://x', { retry: { delayMs: Infinity } })).toThrow(/retry\.delayMs must be a finite number/);

    expect(() => fromEventStream('http://x', { retries: 3 } as never)).toThrow(/retries is not a known option/);
    expect(() => fromEventStream('http://x', { retry: { delay: 1 } } as never)).toThrow(/retry\.delay is not a known option/);
    expect(() => fromEventStream('http://x', { retry: { maxAttempts: 1.5 } })).toThrow(/retry\.maxAttempts must be a non-negative integer/);
    expect(() => fromEventStream('http://x', { scheduler: {}, signal: {}, fetch: 1, schema: {} } as never)).toThrow(
      /signal must be an AbortSignal.*fetch must be a function.*schema must be a zod schema.*scheduler must be an RxJS scheduler/,
    );
    expect(() => fromEventStream('http://x', null as never)).toThrow(ConfigError);
  });

  it('a Response read by one subscription is a ConfigError naming input for the next, which ends at once', async () => {
    const response = new Response('id: 0\nevent: x\ndata: 1\n\n', { headers: { 'content-type': 'text/event-stream' } });
    const numbers = fromEventStream(response, { schema: z.number() });
    const first = lastValueFrom(numbers.pipe(toArray()));
    const second = lastValueFrom(numbers.pipe(toArray()));
    expect(await first).toEqual([1]);
    await expect(second).rejects.toThrow(ConfigError);
    await expect(second).rejects.toThrow(/input must be a Response whose body was not read yet/);
  });

  it('a frame longer than maxFrameLength is an EVENT_STREAM_BAD_FRAME error, and reading stops', async () => {
    let cancelled!: () => void;
    const bodyCancelled = new Promise<void>((resolve) => (cancelled = resolve));
    const encoder = new TextEncoder();
    const server = await serve(() => {
      let first = true;
      // A good event, then one line that never ends.
      const body = new ReadableStream<Uint8Array>({
        pull: (controller) => {
          controller.enqueue(encoder.encode(first ? `id: 0\ndata: ${JSON.stringify(delta(0))}\n\ndata: ` : 'x'.repeat(64 * 1024)));
          first = false;
        },
        cancel: () => cancelled(),
      });
      return new Response(body, { headers: { 'content-type': 'text/event-stream' } });
    });
    closers.push(server.close);
    const seen: RunEvent[] = [];
    const error = await new Promise((resolve) => fromEventStream(server.url, { maxFrameLength: 1_000_000 }).subscribe({ next: (e) => seen.push(e), error: resolve }));
    expect(seen).toEqual([delta(0)]);
    expect(error).toBeInstanceOf(EventStreamError);
    expect(error).toMatchObject({ code: 'EVENT_STREAM_BAD_FRAME', message: expect.stringMatching(/longer than maxFrameLength \(1000000 characters\)/) as unknown });
    await bodyCancelled;
  });

  it("aborting the signal option errors with the signal's reason and stops reading", async () => {
    const subject = new Subject<RunEvent>();
    const server = await serve((request) => toEventStreamResponse(subject, { signal: request.signal }));
    closers.push(server.close);
    const aborter = new AbortController();
    const error = new Promise((resolve) => fromEventStream(server.url, { signal: aborter.signal }).subscribe({ error: resolve }));
    await new Promise<void>((resolve) => {
      const connected = (): void => (subject.observed ? resolve() : void setTimeout(connected, 5));
      connected();
    });
    aborter.abort(new Error('page closed'));
    expect(await error).toMatchObject({ message: 'page closed' });
    const early = await new Promise((resolve) => fromEventStream(server.url, { signal: aborter.signal }).subscribe({ error: resolve }));
    expect(early).toMatchObject({ message: 'page closed' });
  });

  it("aborting a Request input's own signal errors with its reason and stops reading, as the option does", async () => {
    const subject = new Subject<RunEvent>();
    const server = await serve((request) => toEventStreamResponse(subject, { signal: request.signal }));
    closers.push(server.close);
    const aborter = new AbortController();
    const request = new Request(server.url, { signal: aborter.signal });
    const error = new Promise((resolve) => fromEventStream(request).subscribe({ error: resolve }));
    await new Promise<void>((resolve) => {
      const connected = (): void => (subject.observed ? resolve() : void setTimeout(connected, 5));
      connected();
    });
    aborter.abort(new Error('tab closed'));
    expect(await error).toMatchObject({ message: 'tab closed' });
    await new Promise<void>((resolve) => {
      const disconnected = (): void => (subject.observed ? void setTimeout(disconnected, 5) : resolve());
      disconnected();
    });
    const early = await new Promise((resolve) => fromEventStream(request).subscribe({ error: resolve }));
    expect(early).toMatchObject({ message: 'tab closed' });
  });

  it('unsubscribing aborts the fetch', async () => {
    let signal: AbortSignal | undefined;
    const fetchSpy: typeof fetch = (input, init) => {
      signal = init?.signal ?? undefined;
      return fetch(input, init);
    };
    const subject = new Subject<RunEvent>();
    const server = await serve((request) => toEventStreamResponse(subject, { signal: request.signal }));
    closers.push(server.close);
    const subscription = fromEventStream(server.url, { fetch: fetchSpy }).subscribe();
    await new Promise<void>((resolve) => {
      const connected = (): void => (subject.observed ? resolve() : void setTimeout(connected, 5));
      connected();
    });
    subscription.unsubscribe();
    expect(signal?.aborted).toBe(true);
    await new Promise<void>((resolve) => {
      const gone = (): void => (subject.observed ? void setTimeout(gone, 5) : resolve());
      gone();
    });
    expect(subject.observed).toBe(false);
  });
});
