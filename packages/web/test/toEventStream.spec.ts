import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { concat, EMPTY, lastValueFrom, merge, NEVER, of, Subject, take, throwError, toArray, VirtualTimeScheduler } from 'rxjs';
import { ConfigError, defineAgent, invoke$, observeRun, type RunEvent, type RunEventOf } from '@rxagents/core';
import { fromEventStream, redactError, toEventStream, toEventStreamResponse } from '@rxagents/web';
import { countedText, countingAgent, untilSettled } from './helpers/agents';
import { serve } from './helpers/serve';

/** Parses a whole SSE body with eventsource-parser. */
async function frames(body: ReadableStream<Uint8Array>): Promise<EventSourceMessage[]> {
  const messages: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (message) => messages.push(message) });
  parser.feed(await new Response(body).text());
  return messages;
}

describe('toEventStream', () => {
  it('writes each value as a frame with its 0-based id, its type as the event name and JSON data, then closes', async () => {
    const values = [{ type: 'a', n: 1 }, { n: 2 }, 'three'];
    const messages = await frames(toEventStream(of(...values)));
    expect(messages).toEqual([
      { id: '0', event: 'a', data: '{"type":"a","n":1}' },
      { id: '1', event: 'message', data: '{"n":2}' },
      { id: '2', event: 'message', data: '"three"' },
    ]);
  });

  it('names events with the event option, and refuses a name with a line break with an error frame', async () => {
    expect((await frames(toEventStream(of(1, 2), { event: (n) => `n${n}` }))).map((m) => m.event)).toEqual(['n1', 'n2']);
    const bad = await frames(toEventStream(of(1), { event: () => 'x\ndata: injected' }));
    expect(bad).toHaveLength(1);
    expect(bad[0]?.event).toBe('error');
    expect(JSON.parse(bad[0]?.data ?? '')).toMatchObject({ name: 'ConfigError' });
  });

  it("sends a source's error as an error frame after the values before it", async () => {
    const error = Object.assign(new Error('model overloaded'), { code: 'OVERLOADED', retryable: true });
    const messages = await frames(toEventStream(merge(of({ type: 'x' }), throwError(() => error))));
    expect(messages.map((m) => m.event)).toEqual(['x', 'error']);
    expect(messages[1]?.id).toBeUndefined();
    expect(JSON.parse(messages[1]?.data ?? '')).toEqual({ name: 'Error', message: 'An error occurred on the server', code: 'OVERLOADED', retryable: true });
  });

  it("sends no error's message to the browser unless exposeError says so, in error frames and in events' errors", async () => {
    const secret = 'connect ECONNREFUSED 10.0.4.2:6379 (/srv/app/config/redis.json)';
    const broken = defineAgent('broken', async () => {
      throw Object.assign(new Error(secret), { code: 'ECONNREFUSED' });
    });
    const run = () => concat(observeRun('r', 'go', (context) => invoke$(broken, 'go', { run: context })), throwError(() => new Error(secret)));
    const redacted = await frames(toEventStream(run()));
    const text = redacted.map((m) => m.data).join('\n');
    expect(text).not.toContain('10.0.4.2');
    expect(text).not.toContain('/srv/app');
    const callError = JSON.parse(redacted.find((m) => m.event === 'call-error')?.data ?? '') as RunEventOf<'call-error'>;
    expect(callError.error).toEqual({ name: 'AgentError', message: 'An error occurred on the server', code: 'AGENT_ERROR', retryable: false });
    const runEnd = JSON.parse(redacted.find((m) => m.event === 'run-end')?.data ?? '') as RunEventOf<'run-end'>;
    expect(runEnd.error).toMatchObject({ name: 'AgentError', message: 'An error occurred on the server' });
    expect(JSON.parse(redacted.at(-1)?.data ?? '')).toEqual({ name: 'Error', message: 'An error occurred on the server' });

    const detailed = await frames(toEventStream(run(), { exposeError: (error) => error }));
    expect(detailed.filter((m) => m.data.includes('10.0.4.2')).map((m) => m.event)).toEqual(['call-error', 'run-end', 'error']);
  });

  it('sends the redacted error when exposeError throws or answers something that is not an error', async () => {
    const failing = new Error('/srv/app secret');
    const thrown = await frames(toEventStream(throwError(() => failing), { exposeError: () => { throw new Error('bug'); } }));
    const odd = await frames(toEventStream(throwError(() => failing), { exposeError: () => ({ oops: true }) as never }));
    const extra = await frames(toEventStream(throwError(() => failing), { exposeError: (error) => ({ ...error, stack: 'at /srv/app' }) as never }));
    expect(JSON.parse(thrown[0]?.data ?? '')).toEqual({ name: 'Error', message: 'An error occurred on the server' });
    expect(JSON.parse(odd[0]?.data ?? '')).toEqual({ name: 'Error', message: 'An error occurred on the server' });
    expect(JSON.parse(extra[0]?.data ?? '')).toEqual({ name: 'Error', message: '/srv/app secret' });
    expect(() => toEventStream(EMPTY, { exposeError: 'yes' as never })).toThrow(/exposeError/);
  });

  it('a value that cannot be written (a BigInt, a bad event name) ends the stream with an error frame after the values before it', async () => {
    const unserializable = await frames(toEventStream(of({ type: 'a' }, { type: 'b' }, { type: 'c', tokens: 3n })));
    expect(unserializable.map((m) => [m.id, m.event])).toEqual([
      ['0', 'a'],
      ['1', 'b'],
      [undefined, 'error'],
    ]);
    expect(JSON.parse(unserializable[2]?.data ?? '')).toMatchObject({ name: 'TypeError' });
    const source = new Subject<number>();
    const badName = toEventStream(source, { event: (n) => (n === 3 ? 'x\ndata: injected' : `n${n}`) });
    source.next(1);
    source.next(2);
    source.next(3);
    expect((await frames(badName)).map((m) => m.event)).toEqual(['n1', 'n2', 'error']);
    expect(source.observed).toBe(false);
  });

  it('conflate keeps the latest of values that are not run events while the reader is behind', async () => {
    const source = new Subject<number>();
    const body = toEventStream(source, { bufferSize: 2, delivery: 'conflate' });
    for (let n = 1; n <= 10; n++) source.next(n);
    source.complete();
    expect((await frames(body)).map((m) => [m.id, m.data])).toEqual([
      ['0', '1'],
      ['1', '10'],
    ]);
  });

  it('pace with a plain Observable cannot hold it back: every value waits, none is lost', async () => {
    const source = new Subject<number>();
    const body = toEventStream(source, { bufferSize: 2 });
    for (let n = 1; n <= 10; n++) source.next(n);
    source.complete();
    expect((await frames(body)).map((m) => m.data)).toEqual(['1', '2', '3', '4', '5', '6', '7', '8', '9', '10']);
  });

  it('refuses bad options with a ConfigError naming the field', () => {
    expect(() => toEventStream(of(1), { bufferSize: 0 })).toThrow(/bufferSize/);
    expect(() => toEventStream(of(1), { heartbeatMs: -1 })).toThrow(ConfigError);
    expect(() => toEventStream(of(1), { delivery: 'drop' as 'pace' })).toThrow(/delivery/);
    expect(() => toEventStream(42 as never)).toThrow(/source/);
    expect(() => toEventStreamResponse(of(1), { headers: { 'bad name': 'x' } })).toThrow(ConfigError);
    expect(() => toEventStreamResponse(of(1), { headers: [['x-only-a-name']] as never })).toThrow(/headers/);
  });

  it('pings every heartbeatMs on the scheduler while the reader waits, and stops when cancelled', async () => {
    const scheduler = new VirtualTimeScheduler();
    const source = new Subject<{ type: string }>();
    const reader = toEventStream(source, { heartbeatMs: 15_000, scheduler }).getReader();
    const decoder = new TextDecoder();
    const read = async (): Promise<string> => decoder.decode((await reader.read()).value);
    const pending = read();
    scheduler.maxFrames = 14_999;
    scheduler.flush();
    source.next({ type: 'a' });
    expect(await pending).toBe('id: 0\nevent: a\ndata: {"type":"a"}\n\n');
    const ping = read();
    await Promise.resolve();
    scheduler.maxFrames = 15_000;
    scheduler.flush();
    expect(await ping).toBe(': ping\n\n');
    // Unread pings never pile up: one waits, the others are skipped.
    scheduler.maxFrames = 90_000;
    scheduler.flush();
    expect(await read()).toBe(': ping\n\n');
    expect(source.observed).toBe(true);
    await reader.cancel();
    expect(source.observed).toBe(false);
  });

  it.each([null, undefined, 42])('redactError, the default exposeError, refuses %p with a ConfigError naming error', (bad) => {
    expect(() => redactError(bad as never)).toThrow(ConfigError);
    expect(() => redactError(bad as never)).toThrow(/^redactError: error must be a serialized error/);
  });
});

describe('toEventStreamResponse over a loopback server', () => {
  let close: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await close?.();
    close = undefined;
  });

  it('sets the event stream headers and delivers every event in order with its id', async () => {
    const { agent } = countingAgent('writer', 50);
    const server = await serve((request) =>
      toEventStreamResponse((pace) => observeRun('story', 'go', (run) => invoke$(agent, 'go', { run }), { pace }), { signal: request.signal, headers: { 'x-run': 'story' } }),
    );
    close = server.close;
    const response = await fetch(server.url);
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('no-cache, no-transform');
    expect(response.headers.get('x-accel-buffering')).toBe('no');
    expect(response.headers.get('x-run')).toBe('story');
    const messages = await frames(response.body as ReadableStream<Uint8Array>);
    expect(messages.map((m) => m.id)).toEqual(messages.map((_, i) => String(i)));
    const events = messages.map((m) => JSON.parse(m.data) as RunEvent);
    expect(messages.map((m) => m.event)).toEqual(events.map((e) => e.type));
    expect(events.map((e) => e.type)).toEqual(['run-start', 'call-start', ...Array<string>(50).fill('text-delta'), 'call-end', 'run-end']);
    expect(events.flatMap((e) => (e.type === 'text-delta' ? [e.delta] : [])).join('')).toBe(countedText(50));
  });

  it('fromEventStream reads the same events, checked, and completes after the run ends', async () => {
    const { agent } = countingAgent('writer', 20);
    const server = await serve((request) =>
      toEventStreamResponse((pace) => observeRun('story', 'go', (run) => invoke$(agent, 'go', { run }), { pace }), { signal: request.signal }),
    );
    close = server.close;
    const events = await lastValueFrom(fromEventStream(server.url).pipe(toArray()));
    expect(events.at(-1)).toMatchObject({ type: 'run-end', success: true, parentCallId: null });
    expect(events.flatMap((e) => (e.type === 'text-delta' ? [e.delta] : [])).join('')).toBe(countedText(20));
  });

  it('pace: a reader that stops reading holds the run back; nothing is lost when it reads again', async () => {
    const total = 60_000;
    const { agent, pulled } = countingAgent('writer', total);
    const server = await serve((request) =>
      toEventStreamResponse((pace) => observeRun('story', 'go', (run) => invoke$(agent, 'go', { run }), { pace }), { signal: request.signal, bufferSize: 16 }),
    );
    close = server.close;
    const response = await fetch(server.url);
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    const deltas: string[] = [];
    const parser = createParser({ onEvent: (m) => deltas.push((JSON.parse(m.data) as { delta?: string }).delta ?? '') });
    parser.feed(decoder.decode((await reader.read()).value, { stream: true }));
    // Socket buffers hold some frames; the run stops pulling chunks from the agent long before the end.
    expect(await untilSettled(pulled)).toBeLessThan(total / 2);
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      parser.feed(decoder.decode(value, { stream: true }));
    }
    expect(pulled()).toBe(total);
    expect(deltas.join('')).toBe(countedText(total));
  }, 60_000);

  it('conflate: the run never waits for a stalled reader, and the text arrives whole in fewer frames', async () => {
    const total = 60_000;
    const { agent, pulled } = countingAgent('writer', total);
    const server = await serve((request) =>
      toEventStreamResponse((pace) => observeRun('story', 'go', (run) => invoke$(agent, 'go', { run }), { pace }), {
        signal: request.signal,
        bufferSize: 16,
        delivery: 'conflate',
      }),
    );
    close = server.close;
    const response = await fetch(server.url);
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    const messages: EventSourceMessage[] = [];
    const parser = createParser({ onEvent: (m) => messages.push(m) });
    parser.feed(decoder.decode((await reader.read()).value, { stream: true }));
    expect(await untilSettled(pulled)).toBe(total);
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      parser.feed(decoder.decode(value, { stream: true }));
    }
    const events = messages.map((m) => JSON.parse(m.data) as RunEvent);
    expect(events.flatMap((e) => (e.type === 'text-delta' ? [e.delta] : [])).join('')).toBe(countedText(total));
    expect(events.filter((e) => e.type === 'text-delta').length).toBeLessThan(total);
    expect(messages.map((m) => m.id)).toEqual(messages.map((_, i) => String(i)));
    expect(events.at(-1)?.type).toBe('run-end');
  }, 60_000);

  it("a client that goes away cancels the run: every agent's AbortSignal fires on the server", async () => {
    const one = countingAgent('one', Infinity);
    const two = countingAgent('two', Infinity);
    const server = await serve((request) =>
      toEventStreamResponse(
        (pace) => observeRun('both', 'go', (run) => merge(invoke$(one.agent, 'go', { run }), invoke$(two.agent, 'go', { run })), { pace }),
        { signal: request.signal },
      ),
    );
    close = server.close;
    const seen: RunEvent[] = [];
    await new Promise<void>((resolve) => {
      const subscription = fromEventStream(server.url).subscribe((event) => {
        seen.push(event);
        if (seen.filter((e) => e.type === 'text-delta').length === 10) {
          subscription.unsubscribe();
          resolve();
        }
      });
    });
    await Promise.all([one.aborted, two.aborted]);
    expect(seen[0]?.type).toBe('run-start');
  });

  it('a source error reaches fromEventStream as an error with its name, message and code', async () => {
    const failure = Object.assign(new TypeError('no model'), { code: 'NO_MODEL' });
    const started = observeRun('r', 'go', () => NEVER).pipe(take(1));
    const server = await serve(() => toEventStreamResponse(concat(started, throwError(() => failure))));
    close = server.close;
    const error = await lastValueFrom(fromEventStream(server.url)).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'TypeError', message: 'An error occurred on the server', code: 'NO_MODEL' });
  });
});
