import { from, merge, Observable } from 'rxjs';
import { ConfigError, defineAgent, invoke$, observeRun, runEventStream, stream, whenRoom, type RunEvent } from '@rxagents/core';

/** An agent streaming `count` one-letter chunks from an async generator, counting how many were pulled. */
function counted(count: number): { agent: ReturnType<typeof defineAgent>; pulled: () => number; aborted: () => boolean } {
  let pulled = 0;
  let signal: AbortSignal | undefined;
  const agent = defineAgent('counter', (_input, options) => {
    signal = options.signal;
    return (async function* () {
      for (let i = 0; i < count; i++) {
        pulled++;
        yield 'x';
      }
    })();
  });
  return { agent, pulled: () => pulled, aborted: () => signal?.aborted === true };
}

const settle = async (): Promise<void> => {
  for (let i = 0; i < 50; i++) await Promise.resolve();
  await new Promise((resolve) => setImmediate(resolve));
};

describe('runEventStream', () => {
  it("pace: a reader that stops reading stops the run's pulls at the buffer size, and nothing is lost", async () => {
    const { agent, pulled } = counted(1_000);
    const events = runEventStream((pace) => observeRun('r', 'go', (run) => invoke$(agent, 'go', { run }), { pace }), { bufferSize: 8 });
    const reader = events.getReader();
    await reader.read();
    await settle();
    // run-start, call-start and the deltas fill the buffer; the generator is not asked for more.
    expect(pulled()).toBeLessThanOrEqual(8);
    const all: RunEvent[] = [];
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      all.push(value);
    }
    expect(pulled()).toBe(1_000);
    const text = all.flatMap((event) => (event.type === 'text-delta' ? [event.delta] : [])).join('');
    expect(text).toBe('x'.repeat(1_000));
    expect(all.at(-1)?.type).toBe('run-end');
  });

  it('pace: a new agent call waits for the reader', async () => {
    const started: string[] = [];
    const agents = ['a', 'b', 'c'].map((id) => defineAgent(id, async () => (started.push(id), id)));
    const body = (run: Parameters<Parameters<typeof observeRun>[2]>[0]): Observable<string> =>
      new Observable<string>((subscriber) => {
        const next = (i: number): void => {
          if (i === agents.length) {
            subscriber.next('done');
            subscriber.complete();
            return;
          }
          invoke$(agents[i] as (typeof agents)[number], 'go', { run }).subscribe({ complete: () => next(i + 1) });
        };
        next(0);
      });
    // run-start alone fills a buffer of 1: the first call waits until the reader takes it.
    const events = runEventStream((pace) => observeRun('r', 'go', body, { pace }), { bufferSize: 1 });
    const reader = events.getReader();
    await settle();
    expect(started).toEqual([]);
    let read = 0;
    while (!(await reader.read()).done) read++;
    expect(started).toEqual(['a', 'b', 'c']);
    expect(read).toBe(2 + 3 * 3); // run-start and run-end; per call: call-start, one text-delta (the Promise's reply), call-end
  });

  it('pace: calls waiting on a full buffer start one at a time as the reader frees room, not all at once', async () => {
    const started: string[] = [];
    const aborted: string[] = [];
    // Agents that never answer: each call says only call-start, so the buffer holds exactly what started.
    const agents = ['a', 'b', 'c', 'd'].map((id) =>
      defineAgent(id, (_input, { signal }) => {
        started.push(id);
        signal.addEventListener('abort', () => aborted.push(id));
        return new Promise<string>(() => undefined);
      }),
    );
    const body = (run: Parameters<Parameters<typeof observeRun>[2]>[0]): Observable<string> => merge(...agents.map((agent) => invoke$(agent, 'go', { run })));
    // run-start and a's call-start fill a buffer of 2; b, c and d wait for the same room.
    const reader = runEventStream((pace) => observeRun('fan-out', 'go', body, { pace }), { bufferSize: 2 }).getReader();
    await settle();
    expect(started).toEqual(['a']);
    await reader.read();
    await settle();
    // One event read makes room for one call-start: b starts, and the buffer is full again for c and d.
    expect(started).toEqual(['a', 'b']);
    await reader.cancel();
    expect(aborted).toEqual(['a', 'b']);
  });

  it('conflate: the run never waits; a stalled reader gets the whole text in fewer, merged deltas', async () => {
    const { agent, pulled } = counted(10_000);
    const events = runEventStream((pace) => observeRun('r', 'go', (run) => invoke$(agent, 'go', { run }), { pace }), { bufferSize: 4, delivery: 'conflate' });
    const reader = events.getReader();
    await settle();
    for (let i = 0; i < 200 && pulled() < 10_000; i++) await settle();
    expect(pulled()).toBe(10_000);
    const all: RunEvent[] = [];
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      all.push(value);
    }
    const deltas = all.filter((event) => event.type === 'text-delta');
    expect(deltas.length).toBeLessThan(10);
    expect(deltas.map((event) => (event.type === 'text-delta' ? event.delta : '')).join('')).toBe('x'.repeat(10_000));
    expect(all.map((event) => event.type).filter((type) => type !== 'text-delta')).toEqual(['run-start', 'call-start', 'call-end', 'run-end']);
  });

  it('conflate keeps each call in order when two calls interleave', async () => {
    const a = defineAgent('a', () => from(['a1', 'a2', 'a3']));
    const b = defineAgent('b', () => from(['b1', 'b2', 'b3']));
    const body = (run: Parameters<Parameters<typeof observeRun>[2]>[0]): Observable<string> =>
      new Observable<string>((subscriber) => {
        stream(a, 'x', { run }).subscribe();
        stream(b, 'x', { run }).subscribe({ complete: () => (subscriber.next('ok'), subscriber.complete()) });
      });
    const all: RunEvent[] = [];
    for await (const event of runEventStream((pace) => observeRun('r', 'go', body, { pace }), { bufferSize: 1, delivery: 'conflate' })) all.push(event);
    const textOf = (agentId: string): string => all.flatMap((event) => (event.type === 'text-delta' && event.agentId === agentId ? [event.delta] : [])).join('');
    expect(textOf('a')).toBe('a1a2a3');
    expect(textOf('b')).toBe('b1b2b3');
  });

  it('cancelling the stream (breaking out of for await) aborts the agent', async () => {
    const { agent, aborted } = counted(1_000_000);
    for await (const event of runEventStream((pace) => observeRun('r', 'go', (run) => invoke$(agent, 'go', { run }), { pace }))) {
      if (event.type === 'text-delta') break;
    }
    expect(aborted()).toBe(true);
  });

  it('an error of the events errors the stream; a bad option is a ConfigError', async () => {
    const failing = runEventStream(() => new Observable<RunEvent>((subscriber) => subscriber.error(new Error('bus down'))));
    await expect(failing.getReader().read()).rejects.toThrow('bus down');
    expect(() => runEventStream(() => new Observable<RunEvent>(), { bufferSize: 0 })).toThrow(ConfigError);
    expect(() => runEventStream(() => new Observable<RunEvent>(), { delivery: 'drop' as never })).toThrow("runEventStream options: delivery must be 'pace' or 'conflate'");
  });

  it('an error thrown by start errors the stream too, rather than escaping from runEventStream; a start that is no function is a ConfigError', async () => {
    const broken = runEventStream(() => {
      throw new Error('no such run');
    });
    await expect(broken.getReader().read()).rejects.toThrow('no such run');
    expect(() => runEventStream(undefined as never)).toThrow('runEventStream: start must be a function, got undefined');
  });

  it.each([null, 42, {}])('whenRoom refuses %p as the pacing function or a callback with a ConfigError naming it', (bad) => {
    const ok = () => undefined;
    expect(() => whenRoom(bad as never, { closed: false }, ok, ok)).toThrow(/^whenRoom: pace must be a function or undefined/);
    expect(() => whenRoom(undefined, { closed: false }, bad as never, ok)).toThrow(ConfigError);
    expect(() => whenRoom(undefined, { closed: false }, ok, bad as never)).toThrow(/^whenRoom: fail must be a function/);
  });
});
