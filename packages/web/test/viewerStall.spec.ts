import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { Subject, VirtualTimeScheduler } from 'rxjs';
import { ConfigError, defineAgent, invoke$, observeRun, serializeError, type RunEvent } from '@rxagents/core';
import { createRunRegistry, toEventStream, toEventStreamResponse, toUIMessageStream, ViewerStalledError } from '@rxagents/web';
import { countingAgent, untilSettled } from './helpers/agents';

/** Reads a body by hand: `next()` is one `read()`, parsed into SSE messages. */
function readerOf(body: ReadableStream<Uint8Array>): { next: () => Promise<EventSourceMessage[] | 'done'>; rest: () => Promise<EventSourceMessage[]> } {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let messages: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (message) => messages.push(message) });
  const next = async (): Promise<EventSourceMessage[] | 'done'> => {
    const { done, value } = await reader.read();
    if (done) return 'done';
    parser.feed(decoder.decode(value, { stream: true }));
    const read = messages;
    messages = [];
    return read;
  };
  const rest = async (): Promise<EventSourceMessage[]> => {
    const all: EventSourceMessage[] = [];
    for (let read = await next(); read !== 'done'; read = await next()) all.push(...read);
    return all;
  };
  return { next, rest };
}

/** Runs the virtual clock up to `frame` ms (its `now()` is `frame` then). */
function advance(scheduler: VirtualTimeScheduler, frame: number): void {
  scheduler.schedule(() => undefined, frame - scheduler.now());
  scheduler.maxFrames = frame;
  scheduler.flush();
}

/** Lets promise callbacks run (a value reaching the body). */
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

const stalled = JSON.stringify(serializeError(new ViewerStalledError(30_000)));
const delta = (i: number): RunEvent => ({ type: 'text-delta', runId: 'r', callId: 'c', parentCallId: null, at: i, agentId: 'a', delta: `d${i} ` });

describe('stallTimeoutMs', () => {
  it('a paced run whose reader stops reading is cut off after stallTimeoutMs: a VIEWER_STALLED frame, the body closes, every agent is aborted', async () => {
    const scheduler = new VirtualTimeScheduler();
    const { agent, pulled, aborted } = countingAgent('writer', Infinity);
    const body = toEventStream((pace) => observeRun('story', 'go', (run) => invoke$(agent, 'go', { run }), { pace }), {
      bufferSize: 8,
      heartbeatMs: Infinity,
      scheduler,
    });
    const reader = readerOf(body);
    expect(await reader.next()).not.toBe('done');
    // The run fills the buffer and waits for the reader, which reads no more.
    const held = await untilSettled(pulled);
    advance(scheduler, 29_999);
    expect(pulled()).toBe(held);
    advance(scheduler, 30_000);
    await aborted;
    const rest = await reader.rest();
    expect(rest.at(-1)).toEqual({ id: undefined, event: 'error', data: stalled });
    expect(JSON.parse(rest.at(-1)?.data ?? '')).toMatchObject({ name: 'ViewerStalledError', code: 'VIEWER_STALLED', retryable: true });
  });

  it('a reader that asks at least every stallTimeoutMs, or has nothing to read, is never cut off', async () => {
    const scheduler = new VirtualTimeScheduler();
    const source = new Subject<RunEvent>();
    const reader = readerOf(toEventStream(source, { heartbeatMs: Infinity, scheduler }));
    source.next(delta(0));
    expect((await reader.next()) as EventSourceMessage[]).toHaveLength(1);
    // Nothing waits for a long time: not a stall.
    advance(scheduler, 100_000);
    // A value arrives and waits unread for less than stallTimeoutMs: still not a stall.
    source.next(delta(1));
    await settle();
    advance(scheduler, 129_999);
    expect(((await reader.next()) as EventSourceMessage[]).map((m) => m.id)).toEqual(['1']);
    // Read just in time, again and again.
    for (let i = 2; i < 6; i++) {
      source.next(delta(i));
      await settle();
      advance(scheduler, 100_000 + i * 29_999);
      expect(((await reader.next()) as EventSourceMessage[]).map((m) => m.id)).toEqual([String(i)]);
    }
    source.complete();
    expect(await reader.rest()).toEqual([]);
  });

  it('Infinity never cuts a reader off; a bad value is a ConfigError naming stallTimeoutMs', async () => {
    const scheduler = new VirtualTimeScheduler();
    const source = new Subject<RunEvent>();
    const reader = readerOf(toEventStream(source, { heartbeatMs: Infinity, stallTimeoutMs: Infinity, scheduler }));
    source.next(delta(0));
    await reader.next();
    source.next(delta(1));
    advance(scheduler, 10_000_000);
    expect(source.observed).toBe(true);
    source.complete();
    expect((await reader.rest()).map((m) => m.id)).toEqual(['1']);
    expect(() => toEventStream(source, { stallTimeoutMs: 0 })).toThrow(/stallTimeoutMs/);
    expect(() => toEventStreamResponse(source, { stallTimeoutMs: -1 })).toThrow(ConfigError);
    expect(() => createRunRegistry({ stallTimeoutMs: Number.NaN })).toThrow(/stallTimeoutMs/);
  });

  it('a registry viewer that stops reading is cut off; the run and its other viewers go on', async () => {
    const scheduler = new VirtualTimeScheduler();
    const registry = createRunRegistry({ heartbeatMs: Infinity, stallTimeoutMs: 30_000, scheduler });
    const events$ = new Subject<RunEvent>();
    const { runId } = registry.start(events$);
    events$.next(delta(0));
    const slow = readerOf(registry.response(runId, new Request('http://x/runs')).body as ReadableStream<Uint8Array>);
    const quick = readerOf(registry.response(runId, new Request('http://x/runs')).body as ReadableStream<Uint8Array>);
    expect(await slow.next()).toHaveLength(1);
    expect(await quick.next()).toHaveLength(1);
    const quickNext = quick.next();
    events$.next(delta(1));
    expect(((await quickNext) as EventSourceMessage[]).map((m) => m.id)).toEqual(['1']);
    advance(scheduler, 30_000);
    expect(await slow.rest()).toEqual([{ id: undefined, event: 'error', data: stalled }]);
    expect(events$.observed).toBe(true);
    events$.next(delta(2));
    events$.complete();
    expect((await quick.rest()).map((m) => m.id)).toEqual(['2']);
    registry.close();
  });
});

describe('stallTimeoutMs of the UI message stream', () => {
  it('a paced run whose reader stops asking for chunks is cut off: the run is aborted and the stream ends with an error chunk', async () => {
    const scheduler = new VirtualTimeScheduler();
    const { agent, pulled, aborted } = countingAgent('writer', Infinity);
    const stream = toUIMessageStream((pace) => observeRun('story', 'go', (run) => invoke$(agent, 'go', { run }), { pace }), { bufferSize: 8, scheduler });
    const reader = stream.getReader();
    expect((await reader.read()).value).toMatchObject({ type: 'start' });
    // The run fills the buffer and waits for the reader, which asks for nothing more.
    const held = await untilSettled(pulled);
    advance(scheduler, 29_999);
    await settle();
    expect(pulled()).toBe(held);
    advance(scheduler, 30_000);
    await aborted;
    const rest: unknown[] = [];
    for (let next = await reader.read(); !next.done; next = await reader.read()) rest.push(next.value);
    expect(rest.at(-1)).toEqual({ type: 'error', errorText: new ViewerStalledError(30_000).message });
  });

  it('a reader that keeps asking is never cut off, however slow the run is', async () => {
    const scheduler = new VirtualTimeScheduler();
    const gate = new Subject<string>();
    const slow = defineAgent('slow', () => gate);
    const stream = toUIMessageStream(observeRun('story', 'go', (run) => invoke$(slow, 'go', { run })), { stallTimeoutMs: 1_000, scheduler });
    const chunks = (async () => {
      const all: { type: string }[] = [];
      for await (const chunk of stream) all.push(chunk);
      return all;
    })();
    await settle();
    advance(scheduler, 5_000);
    gate.next('late ');
    gate.complete();
    const all = await chunks;
    expect(all.map((chunk) => chunk.type)).not.toContain('error');
    expect(all.at(-1)).toMatchObject({ type: 'finish' });
  });

  it('refuses a bad stallTimeoutMs with a ConfigError', () => {
    expect(() => toUIMessageStream(observeRun('story', 'go', () => new Subject<unknown>()), { stallTimeoutMs: -1 })).toThrow(ConfigError);
  });
});
