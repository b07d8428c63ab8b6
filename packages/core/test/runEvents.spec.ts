import { TestScheduler } from 'rxjs/testing';
import { asapScheduler, concat, from, last, lastValueFrom, map, NEVER, Observable, of, Subject, take, takeUntil, throwError, toArray } from 'rxjs';
import fc from 'fast-check';
import {
  AgentTimeoutError,
  ConfigError,
  defineAgent,
  emitCustom,
  emitUsage,
  emptyRunView,
  invoke$,
  observeRun,
  reduceRunView,
  RunEventSchema,
  runView,
  serializeError,
  stream,
  traceResult,
  traceRun,
  type RunContext,
  type RunEvent,
} from '@rxagents/core';

const testScheduler = (): TestScheduler => new TestScheduler((actual, expected) => expect(actual).toEqual(expected));

/** `type@at agent` (or `type@at name`), for comparing event order and times. */
function brief(event: RunEvent): string {
  const who = 'agentId' in event ? event.agentId : 'name' in event ? event.name : '';
  const extra = event.type === 'text-delta' ? `:${event.delta}` : event.type === 'call-error' || (event.type === 'run-end' && !event.success) ? `:${event.error?.name}` : '';
  return `${event.type}@${event.at} ${who}${extra}`;
}

describe('run events of an agent call', () => {
  it('streams call-start, a text-delta per chunk as the agent emits it, and call-end, on virtual time', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const writer = defineAgent('writer', () => cold('100ms a 99ms b 99ms c|', { a: 'tok0 ', b: 'tok1 ', c: 'tok2 ' }));
      const events$ = observeRun('story', 'go', (run) => stream(writer, 'go', { run })).pipe(map(brief));
      expectObservable(events$).toBe('(ab) 96ms c 99ms d 99ms e (fg|)', {
        a: 'run-start@0 story',
        b: 'call-start@0 writer',
        c: 'text-delta@100 writer:tok0 ',
        d: 'text-delta@200 writer:tok1 ',
        e: 'text-delta@300 writer:tok2 ',
        f: 'call-end@301 writer',
        g: 'run-end@301 ',
      });
    });
  });

  it('nests: an agent that passes its ChatOptions.run on puts its inner calls under its own call', async () => {
    const writer = defineAgent('writer', () => from(['Once ', 'upon']));
    const panel = defineAgent('panel', (input, { run }) => traceRun(run, 'inner', input, (inner) => invoke$(writer, input, { run: inner })));
    const events = await lastValueFrom(observeRun('outer', 'go', (run) => invoke$(panel, 'go', { run })).pipe(toArray()));
    const starts = events.filter((event) => event.type === 'run-start' || event.type === 'call-start');
    const [root, panelCall, inner, writerCall] = starts;
    expect(starts.map(brief).map((text) => text.split('@')[0])).toEqual(['run-start', 'call-start', 'run-start', 'call-start']);
    expect(root?.parentCallId).toBeNull();
    expect(panelCall?.parentCallId).toBe(root?.callId);
    expect(inner?.parentCallId).toBe(panelCall?.callId);
    expect(writerCall?.parentCallId).toBe(inner?.callId);
    expect(new Set(events.map((event) => event.runId)).size).toBe(1);
    for (const event of events) expect(RunEventSchema.parse(JSON.parse(JSON.stringify(event)))).toEqual(event);
  });

  it('a plain agent that ignores the run still works, and one that reads it sees a context nested under its call', async () => {
    let seen: RunContext | undefined;
    const reader = defineAgent('reader', async (_input, { run }) => {
      seen = run;
      return 'ok';
    });
    const events = await lastValueFrom(observeRun('r', 'x', (run) => invoke$(reader, 'x', { run })).pipe(toArray()));
    const call = events.find((event) => event.type === 'call-start');
    expect(seen?.callId).toBe(call?.callId);
    expect(seen?.parentCallId).toBe(call?.parentCallId);
    await expect(lastValueFrom(invoke$(defineAgent('plain', async () => 'fine'), 'x'))).resolves.toBe('fine');
  });

  it('a failing agent gives call-error with the real error serialised, and run-end says the run failed', async () => {
    const flaky = defineAgent('flaky', () => throwError(() => new Error('model overloaded')));
    const events = await lastValueFrom(observeRun('r', 'x', (run) => invoke$(flaky, 'x', { run })).pipe(toArray()));
    const failed = events.find((event) => event.type === 'call-error');
    expect(failed?.type === 'call-error' && failed.error).toEqual({ name: 'AgentError', message: 'Agent "flaky" failed: model overloaded', code: 'AGENT_ERROR', retryable: false });
    const end = events.at(-1);
    expect(end?.type === 'run-end' && end.success).toBe(false);
  });

  it('a timeout is a call-error named AgentTimeoutError at the deadline', () => {
    testScheduler().run(({ expectObservable }) => {
      const stuck = defineAgent('stuck', () => NEVER);
      const events$ = observeRun('r', 'x', (run) => stream(stuck, 'x', { run, timeout: 50 })).pipe(map(brief));
      expectObservable(events$).toBe('(ab) 46ms (cd|)', { a: 'run-start@0 r', b: 'call-start@0 stuck', c: 'call-error@50 stuck:AgentTimeoutError', d: 'run-end@50 :AgentTimeoutError' });
    });
  });

  it('a call cancelled inside the run (take(1)) ends with a call-error named AbortError, and the agent is aborted', () => {
    let aborted = false;
    testScheduler().run(({ cold, expectObservable }) => {
      const chatty = defineAgent('chatty', (_input, { signal }) => {
        signal.addEventListener('abort', () => (aborted = true));
        return cold('10ms a 10ms b|', { a: 'one', b: 'two' });
      });
      const events$ = observeRun('r', 'x', (run) => stream(chatty, 'x', { run }).pipe(take(1))).pipe(map(brief));
      expectObservable(events$).toBe('(ab) 6ms (cde|)', {
        a: 'run-start@0 r',
        b: 'call-start@0 chatty',
        c: 'text-delta@10 chatty:one',
        d: 'call-error@10 chatty:AbortError',
        e: 'run-end@10 ',
      });
    });
    expect(aborted).toBe(true);
  });

  it('unsubscribing from the events aborts every agent in the tree', () => {
    const signals: AbortSignal[] = [];
    const hang = (id: string) =>
      defineAgent(id, (_input, { signal }) => {
        signals.push(signal);
        return NEVER;
      });
    const panel = defineAgent('panel', (input, { run, signal }) => {
      signals.push(signal);
      return traceRun(run, 'inner', input, (inner) => invoke$(hang('deep'), input, { run: inner }));
    });
    const subscription = observeRun('r', 'x', (run) => invoke$(panel, 'x', { run })).subscribe();
    expect(signals).toHaveLength(2);
    subscription.unsubscribe();
    expect(signals.every((signal) => signal.aborted)).toBe(true);
  });

  it('custom events land under the call that emitted them', async () => {
    const researcher = defineAgent('researcher', async (input, { run }) => {
      emitCustom(run, 'sources', ['https://rxjs.dev']);
      return `facts about ${input}`;
    });
    const events = await lastValueFrom(observeRun('r', 'RxJS', (run) => invoke$(researcher, 'RxJS', { run })).pipe(toArray()));
    const call = events.find((event) => event.type === 'call-start');
    const custom = events.find((event) => event.type === 'custom');
    expect(custom).toMatchObject({ name: 'sources', data: ['https://rxjs.dev'], callId: call?.callId });
    emitCustom(undefined, 'ignored', null);
  });

  it('a custom event carries its data as JSON, as the wire does: valid for RunEventSchema, and untouched by later changes to the data', async () => {
    const progress = { step: 1, at: new Date(0), ratio: Number.NaN, note: undefined as string | undefined };
    const reporter = defineAgent('reporter', async (_input, { run }) => {
      emitCustom(run, 'progress', progress as never);
      progress.step = 2;
      return 'done';
    });
    const events = await lastValueFrom(observeRun('r', 'x', (run) => invoke$(reporter, 'x', { run })).pipe(toArray()));
    const custom = events.find((event) => event.type === 'custom');
    expect(custom).toMatchObject({ data: { step: 1, at: '1970-01-01T00:00:00.000Z', ratio: null } });
    expect(custom?.type === 'custom' && 'note' in (custom.data as object)).toBe(false);
    expect(events.every((event) => RunEventSchema.safeParse(event).success)).toBe(true);
  });

  it('says nothing more of a node once it ended: what an agent that ignores its abort reports later is dropped', async () => {
    let resume!: () => void;
    const resumed = new Promise<void>((resolve) => (resume = resolve));
    let reported!: () => void;
    const doneReporting = new Promise<void>((resolve) => (reported = resolve));
    const helper = defineAgent('helper', async () => 'help');
    // Ignores its signal: cancelled while waiting, it goes on and reports into its (ended) call.
    const stubborn = defineAgent('stubborn', async (input, { run }) => {
      await resumed;
      emitUsage(run, { agentId: 'stubborn', outputTokens: 7 });
      const nested = await lastValueFrom(traceRun(run, 'late', input, (inner) => invoke$(helper, input, { run: inner })));
      reported();
      return nested;
    });
    const stop = new Subject<void>();
    let finish!: () => void;
    const last = new Promise<string>((resolve) => (finish = () => resolve('done')));
    const closer = defineAgent('closer', () => last);
    const events: RunEvent[] = [];
    const ended = new Promise<void>((resolve) =>
      observeRun('r', 'go', (run) => concat(invoke$(stubborn, 'go', { run }).pipe(takeUntil(stop)), invoke$(closer, 'go', { run }))).subscribe({
        next: (event) => events.push(event),
        complete: resolve,
      }),
    );
    stop.next();
    resume();
    await doneReporting;
    finish();
    await ended;
    const stubbornCall = events.find((event) => event.type === 'call-start' && event.agentId === 'stubborn');
    const itsEnd = events.findIndex((event) => event.type === 'call-error' && event.callId === stubbornCall?.callId);
    expect(events[itsEnd]).toMatchObject({ error: { name: 'AbortError' } });
    const after = events.slice(itsEnd + 1);
    expect(after.filter((event) => event.callId === stubbornCall?.callId || event.parentCallId === stubbornCall?.callId)).toEqual([]);
    expect(after.map((event) => event.type)).toEqual(['call-start', 'text-delta', 'call-end', 'run-end']);
  });

  it('says nothing more of a call once a node above it ended, even of a call that was still running then', async () => {
    const chunks = new Subject<string>();
    const helper = defineAgent('helper', () => chunks);
    // Starts a nested call and returns without waiting for it: the nested call outlives the lead's.
    const lead = defineAgent('lead', (input, { run }) => {
      stream(helper, input, run === undefined ? {} : { run }).subscribe({ error: () => undefined });
      return of('lead done');
    });
    let release!: () => void;
    const closer = defineAgent('closer', () => new Promise<string>((resolve) => (release = () => resolve('closed'))));
    const events: RunEvent[] = [];
    const ended = new Promise<void>((resolve) =>
      observeRun('r', 'go', (run) => concat(invoke$(lead, 'go', { run }), invoke$(closer, 'go', { run }))).subscribe({ next: (event) => events.push(event), complete: resolve }),
    );
    // The lead's call has ended by now (its reply was synchronous): this chunk comes after it.
    chunks.next('late');
    chunks.complete();
    release();
    await ended;
    const leadCall = events.find((event) => event.type === 'call-start' && event.agentId === 'lead');
    const helperCall = events.find((event) => event.type === 'call-start' && event.agentId === 'helper');
    expect(helperCall?.parentCallId).toBe(leadCall?.callId);
    const leadEnd = events.findIndex((event) => event.type === 'call-end' && event.callId === leadCall?.callId);
    expect(events.slice(leadEnd + 1).filter((event) => event.callId === helperCall?.callId)).toEqual([]);
    expect(events.map((event) => event.type)).toEqual(['run-start', 'call-start', 'call-start', 'text-delta', 'call-end', 'call-start', 'text-delta', 'call-end', 'run-end']);
  });

  it('emitCustom and emitUsage refuse what would make an event RunEventSchema refuses, and the agent\'s call fails with it', async () => {
    expect(() => emitCustom(undefined, '', { step: 1 })).toThrow('emitCustom: name must be a non-empty string, got ""');
    expect(() => emitCustom(undefined, 'progress', undefined as never)).toThrow('emitCustom: data must be a JSON value, got undefined');
    expect(() => emitCustom(undefined, 'progress', { total: 1n } as never)).toThrow(ConfigError);
    expect(() => emitUsage(undefined, { agentId: 7 as never, inputTokens: 3 })).toThrow('emitUsage: agentId must be a string, got 7');
    const sloppy = defineAgent('sloppy', async (_input, { run }) => {
      emitCustom(run, '', 'oops');
      return 'done';
    });
    const events = await lastValueFrom(observeRun('r', 'x', (run) => invoke$(sloppy, 'x', { run })).pipe(toArray()));
    expect(events.every((event) => RunEventSchema.safeParse(event).success)).toBe(true);
    expect(events.find((event) => event.type === 'call-error')).toMatchObject({ error: { message: expect.stringContaining('emitCustom: name must be a non-empty string') } });
  });

  it('emitCustom and emitUsage refuse a hand-made context above the root, which has no node: a view would show a root that never ends', () => {
    const seen: RunEvent[] = [];
    const root: RunContext = { runId: 'r', callId: null, parentCallId: null, scheduler: asapScheduler, emit: (event) => seen.push(event) };
    const named = 'must name a node of the run: report with the context an agent call gets (ChatOptions.run)';
    expect(() => emitCustom(root, 'progress', { step: 1 })).toThrow(`emitCustom: run.callId ${named}`);
    expect(() => emitUsage(root, { agentId: 'model', outputTokens: 3 })).toThrow(`emitUsage: run.callId ${named}`);
    expect(seen).toEqual([]);
    // The same root works for what makes nodes: an agent call under it is the run's root node.
    let reported: RunContext | undefined;
    const writer = defineAgent('writer', async (_input, { run }) => {
      reported = run;
      emitCustom(run, 'progress', { step: 1 });
      return 'done';
    });
    return lastValueFrom(invoke$(writer, 'x', { run: root })).then(() => {
      const view = seen.reduce(reduceRunView, emptyRunView);
      expect([view.status, view.nodes.length, view.nodes[0]?.log.map((event) => event.type)]).toEqual(['completed', 1, ['custom']]);
      expect(reported?.callId).toBe(view.rootId);
    });
  });

  it.each([null, 42, {}])('emitCustom and emitUsage refuse %p as the run with a ConfigError naming run', (bad) => {
    expect(() => emitCustom(bad as never, 'progress', { step: 1 })).toThrow(ConfigError);
    expect(() => emitCustom(bad as never, 'progress', { step: 1 })).toThrow(/^emitCustom: run must be a run context/);
    expect(() => emitUsage(bad as never, { agentId: 'model', outputTokens: 3 })).toThrow(/^emitUsage: run must be a run context/);
  });

  it('refuses a run option that is not a run context', () => {
    expect(() => stream(defineAgent('a', async () => 'x'), 'x', { run: { runId: 'r' } as unknown as RunContext })).toThrow(
      'agent call options: run must be a run context ({ runId, callId, scheduler, emit }), got {"runId":"r"}',
    );
  });
});

describe('observeRun', () => {
  it('refuses, at once, what would make its events invalid or be ignored: a blank run id, a non-string name or input, an unknown option', () => {
    const body = () => of('x');
    expect(() => observeRun('r', 'x', body, { runId: '' })).toThrow('observeRun: options.runId must be a non-blank string, got ""');
    expect(() => observeRun(42 as never, 'x', body)).toThrow('observeRun: name must be a string, got 42');
    expect(() => observeRun('r', undefined as never, body)).toThrow('observeRun: input must be a string');
    expect(() => observeRun('r', 'x', body, { sheduler: asapScheduler } as never)).toThrow('observeRun: options.sheduler is not a known option (did you mean scheduler?)');
    expect(() => observeRun('r', 'x', body, { scheduler: {} as never })).toThrow(ConfigError);
    expect(() => observeRun('r', 'x', 'body' as never)).toThrow('observeRun: body must be a function');
  });

  it('accepts options left undefined, as a runnable passes them on', async () => {
    const events = await lastValueFrom(observeRun('r', 'x', (_run) => of('x'), { scheduler: undefined, runId: undefined, describe: undefined, pace: undefined }).pipe(toArray()));
    expect(events.map((event) => RunEventSchema.safeParse(event).success)).toEqual([true, true]);
  });
});

describe('traceRun', () => {
  it('is free when nobody watches: the body runs without a context', async () => {
    let given: RunContext | undefined | 'unset' = 'unset';
    await lastValueFrom(traceRun(undefined, 'n', 'x', (run) => ((given = run), of(1))));
    expect(given).toBeUndefined();
  });

  it('reads the outcome with describe, and a body that completes without a value is a failed run', async () => {
    const outcome = await lastValueFrom(
      observeRun('r', 'x', (run) => traceRun(run, 'vote', 'x', () => of({ winner: 'yes' }), (value) => ({ success: true, output: value.winner }))).pipe(toArray()),
    );
    expect(outcome.filter((event) => event.type === 'run-end').map((event) => event.type === 'run-end' && event.output)).toEqual(['yes', undefined]);
    const empty = await lastValueFrom(observeRun('r', 'x', (run) => traceRun(run, 'quiet', 'x', () => of<never>())).pipe(toArray()));
    const inner = empty.find((event) => event.type === 'run-end' && event.callId !== empty[0]?.callId);
    expect(inner?.type === 'run-end' && inner.error?.message).toBe('quiet ended without a result');
  });

  it('a describe that throws fails the node and errors its subscriber instead of leaving it running', async () => {
    const seen: RunEvent[] = [];
    const run: RunContext = { runId: 'r', callId: null, parentCallId: null, scheduler: asapScheduler, emit: (event) => seen.push(event) };
    const broken = traceRun(run, 'vote', 'x', () => of(1), () => {
      throw new TypeError('no tally');
    });
    await expect(lastValueFrom(broken)).rejects.toThrow('no tally');
    expect(seen.at(-1)).toMatchObject({ type: 'run-end', success: false, error: { name: 'TypeError', message: 'no tally' } });
  });

  it('a body that throws instead of returning an Observable fails the node with what it threw', async () => {
    const events = await lastValueFrom(
      observeRun('r', 'x', () => {
        throw new RangeError('no agents configured');
      }).pipe(toArray()),
    );
    expect(events.map((event) => event.type)).toEqual(['run-start', 'run-end']);
    expect(events[1]).toMatchObject({ type: 'run-end', success: false, error: { name: 'RangeError', message: 'no agents configured' } });
    const view = events.reduce(reduceRunView, emptyRunView);
    expect(view.status).toBe('failed');
    const seen: RunEvent[] = [];
    const run: RunContext = { runId: 'r', callId: null, parentCallId: null, scheduler: asapScheduler, emit: (event) => seen.push(event) };
    const nested = traceRun(run, 'vote', 'x', () => {
      throw new TypeError('bad ballot');
    });
    await expect(lastValueFrom(nested)).rejects.toThrow('bad ballot');
    expect(seen.map((event) => event.type)).toEqual(['run-start', 'run-end']);
  });

  it('the events stream completes normally when the run fails: the failure is in run-end', async () => {
    const events = await lastValueFrom(observeRun('r', 'x', (_run) => throwError(() => new AgentTimeoutError('a', 5))).pipe(toArray()));
    expect(events.map((event) => event.type)).toEqual(['run-start', 'run-end']);
    expect(events[1]?.type === 'run-end' && events[1].error?.code).toBe('AGENT_TIMEOUT');
  });

  it.each([null, 42, {}])('refuses %p as the run, the name, the input or the body with a ConfigError naming it', (bad) => {
    const body = () => of('x');
    expect(() => traceRun(bad as never, 'n', 'i', body)).toThrow(/^traceRun: run must be a run context/);
    expect(() => traceRun(undefined, bad as never, 'i', body)).toThrow(/^traceRun: name must be a string/);
    expect(() => traceRun(undefined, 'n', bad as never, body)).toThrow(/^traceRun: input must be a string/);
    expect(() => traceRun(undefined, 'n', 'i', bad as never)).toThrow(ConfigError);
    expect(() => traceRun(undefined, 'n', 'i', bad as never)).toThrow(/^traceRun: body must be a function/);
  });
});

describe('traceResult', () => {
  it('takes the body\'s first value: a body that gives its result and stays subscribed ends its node with it, is unsubscribed, and the result follows run-end', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const body = cold<string>('5ms a 5ms b', { a: 'Hello, Ada', b: 'ignored' });
      const events$ = observeRun('app', 'x', (run) =>
        traceResult(run, 'greeting', 'Ada', () => body, (output) => ({ success: true, output })).pipe(map((output) => (emitCustom(run, 'result', output), output))),
      );
      const said = (event: RunEvent): string => `${brief(event)}${event.type === 'run-end' ? (event.output ?? '') : event.type === 'custom' ? ` ${String(event.data)}` : ''}`;
      expectObservable(events$.pipe(map(said))).toBe('(ab) 1ms (cde|)', {
        a: 'run-start@0 app',
        b: 'run-start@0 greeting',
        c: 'run-end@5 Hello, Ada',
        d: 'custom@5 result Hello, Ada',
        e: 'run-end@5 Hello, Ada',
      });
      expectSubscriptions(body.subscriptions).toBe('^----!');
    });
  });

  it.each([null, 42, {}])('refuses %p as the body or describe with a ConfigError naming it', (bad) => {
    expect(() => traceResult(undefined, 'n', 'i', bad as never, () => ({ success: true }))).toThrow(/^traceResult: body must be a function/);
    expect(() => traceResult(undefined, 'n', 'i', () => of('x'), bad as never)).toThrow(/^traceResult: describe must be a function/);
  });
});

describe('serializeError', () => {
  it('keeps name, message, code and retryable, and turns anything else into a message', () => {
    const withCode = Object.assign(new TypeError('bad'), { code: 'E_BAD', retryable: true });
    expect(serializeError(withCode)).toEqual({ name: 'TypeError', message: 'bad', code: 'E_BAD', retryable: true });
    expect(serializeError('plain string')).toEqual({ name: 'Error', message: 'plain string' });
    expect(serializeError(Object.assign(new Error('x'), { code: 42 }))).toEqual({ name: 'Error', message: 'x' });
  });

  it('never throws and always gives strings, so a run that fails with anything still ends with run-end', async () => {
    const bare = Object.assign(Object.create(null) as object, { status: 429 });
    expect(serializeError(bare)).toEqual({ name: 'Error', message: '{"status":429}' });
    expect(serializeError(Object.assign(new Error('x'), { name: 42 }))).toEqual({ name: 'Error', message: 'x' });
    const events = await lastValueFrom(observeRun('r', 'x', (_run) => throwError(() => bare)).pipe(toArray()));
    expect(events.map((event) => event.type)).toEqual(['run-start', 'run-end']);
    expect(events.every((event) => RunEventSchema.safeParse(event).success)).toBe(true);
  });

  it('never throws on an error whose properties throw when read: the run still ends with run-end', async () => {
    class Haunted extends Error {
      override get name(): string {
        throw new Error('no name');
      }
    }
    const { proxy, revoke } = Proxy.revocable(new Error('gone'), {});
    revoke();
    expect(serializeError(new Haunted('x'))).toEqual({ name: 'Error', message: expect.any(String) });
    expect(serializeError(proxy)).toEqual({ name: 'Error', message: expect.any(String) });
    const events = await lastValueFrom(observeRun('r', 'x', (_run) => throwError(() => new Haunted('boo'))).pipe(toArray()));
    expect(events.map((event) => event.type)).toEqual(['run-start', 'run-end']);
    expect(events.every((event) => RunEventSchema.safeParse(event).success)).toBe(true);
  });
});

describe('RunEventSchema', () => {
  it('refuses an unknown type, a missing field and an unknown field', () => {
    const delta = { type: 'text-delta', runId: 'r', callId: 'c', parentCallId: null, at: 0, agentId: 'a', delta: 'x' };
    expect(RunEventSchema.safeParse(delta).success).toBe(true);
    expect(RunEventSchema.safeParse({ ...delta, type: 'nope' }).success).toBe(false);
    expect(RunEventSchema.safeParse({ ...delta, delta: undefined }).success).toBe(false);
    expect(RunEventSchema.safeParse({ ...delta, extra: 1 }).success).toBe(false);
  });

  it('answers for hostile input instead of throwing: custom data nested thousands of levels deep is refused', () => {
    const custom = (data: unknown) => ({ type: 'custom', runId: 'r', callId: 'c', parentCallId: null, at: 0, name: 'n', data });
    const nested = (levels: number): unknown => JSON.parse('['.repeat(levels) + ']'.repeat(levels));
    expect(RunEventSchema.safeParse(custom(nested(100))).success).toBe(true);
    const deep = RunEventSchema.safeParse(custom(nested(5_000)));
    expect(deep.success).toBe(false);
    expect(deep.error?.issues[0]?.message).toBe('must nest at most 100 levels deep');
    expect(RunEventSchema.safeParse(custom(nested(101))).success).toBe(false);
    // emitCustom refuses what the schema would refuse where the event is read.
    expect(() => emitCustom(undefined, 'deep', nested(101) as never)).toThrow('emitCustom: data must be a JSON value');
    expect(() => emitCustom(undefined, 'fine', nested(100) as never)).not.toThrow();
  });
});

describe('runView', () => {
  it('reduces a run to its tree, texts, statuses and durations, and the final text equals the reply', () => {
    fc.assert(
      fc.property(fc.array(fc.array(fc.string(), { maxLength: 5 }), { minLength: 1, maxLength: 4 }), (replies) => {
        const agents = replies.map((chunks, i) => defineAgent(`a${i}`, () => from(chunks)));
        const body = (run: RunContext): Observable<string> =>
          from(agents).pipe(
            map((agent) => agent),
            (agents$) => new Observable<string>((subscriber) => {
              let text = '';
              const subscription = agents$.subscribe((agent) => invoke$(agent, 'go', { run }).subscribe((reply) => (text += reply)));
              subscriber.next(text);
              subscriber.complete();
              return subscription;
            }),
          );
        let view = emptyRunView;
        observeRun('all', 'go', body).subscribe((event) => (view = reduceRunView(view, event)));
        const calls = view.nodes.filter((node) => node.kind === 'call');
        expect(calls.map((node) => node.text)).toEqual(replies.map((chunks) => chunks.join('')));
        expect(calls.every((node) => node.status === 'completed')).toBe(true);
        expect(view.status).toBe('completed');
        expect(view.nodes.find((node) => node.callId === view.rootId)?.children).toEqual(calls.map((node) => node.callId));
      }),
    );
  });

  it('never changes an earlier view, shares unchanged nodes, and is plain JSON', async () => {
    const writer = defineAgent('writer', () => from(['a', 'b']));
    const views = await lastValueFrom(runView(observeRun('r', 'x', (run) => invoke$(writer, 'x', { run }))).pipe(toArray()));
    const texts = views.map((view) => view.nodes[1]?.text ?? null);
    expect(texts).toEqual([null, '', 'a', 'ab', 'ab', 'ab']);
    expect(views[3]?.nodes[0]).toBe(views[2]?.nodes[0]);
    const final = views.at(-1);
    expect(JSON.parse(JSON.stringify(final))).toEqual(final);
  });

  it('cancelled and failed calls read as such; usage and the latest metrics per source are kept', () => {
    const base = { runId: 'r', at: 1 } as const;
    const events: RunEvent[] = [
      { type: 'run-start', ...base, callId: 'root', parentCallId: null, name: 'n', input: '' },
      { type: 'call-start', ...base, callId: 'c1', parentCallId: 'root', agentId: 'a', input: '' },
      { type: 'call-error', ...base, callId: 'c1', parentCallId: 'root', agentId: 'a', error: { name: 'AbortError', message: 'x' }, durationMs: 0 },
      { type: 'call-start', ...base, callId: 'c2', parentCallId: 'root', agentId: 'b', input: '' },
      { type: 'usage', ...base, callId: 'c2', parentCallId: 'root', agentId: 'b', inputTokens: 3, outputTokens: 4 },
      { type: 'call-error', ...base, callId: 'c2', parentCallId: 'root', agentId: 'b', error: { name: 'AgentError', message: 'y' }, durationMs: 2 },
      { type: 'metrics', ...base, callId: 'root', parentCallId: null, source: 'ch', metrics: { emitted: 1 } },
      { type: 'metrics', ...base, at: 2, callId: 'root', parentCallId: null, source: 'ch', metrics: { emitted: 2 } },
      { type: 'handoff', ...base, callId: 'root', parentCallId: null, from: 'a', to: 'b', taskId: 't' },
    ];
    const view = events.reduce(reduceRunView, emptyRunView);
    expect(view.nodes.map((node) => node.status)).toEqual(['running', 'cancelled', 'failed']);
    expect(view.usage).toEqual({ inputTokens: 3, outputTokens: 4, totalTokens: 7 });
    expect(view.nodes[2]?.usage?.totalTokens).toBe(7);
    expect(view.metrics.map((sample) => sample.metrics['emitted'])).toEqual([2]);
    expect(view.nodes[0]?.log.map((event) => event.type)).toEqual(['handoff']);
  });

  it('a late viewer that missed call-start still gets the call from its deltas', () => {
    const view = reduceRunView(emptyRunView, { type: 'text-delta', runId: 'r', callId: 'c', parentCallId: 'p', at: 3, agentId: 'writer', delta: 'hi' });
    expect(view.nodes).toEqual([expect.objectContaining({ callId: 'c', name: 'writer', text: 'hi', status: 'running' })]);
  });

  it('keeps one node for a start said twice (a wire that resent it), or said after the events a view made the node from', () => {
    const base = { runId: 'r', at: 1 } as const;
    const seen: RunEvent[] = [
      { type: 'run-start', ...base, callId: 'root', parentCallId: null, name: 'story', input: 'go' },
      { type: 'text-delta', ...base, callId: 'c1', parentCallId: 'root', agentId: 'writer', delta: 'Once ' },
      { type: 'call-start', ...base, at: 0, callId: 'c1', parentCallId: 'root', agentId: 'writer', input: 'tell' },
      { type: 'text-delta', ...base, callId: 'c1', parentCallId: 'root', agentId: 'writer', delta: 'upon' },
      { type: 'call-start', ...base, at: 0, callId: 'c1', parentCallId: 'root', agentId: 'writer', input: 'tell' },
      { type: 'call-end', ...base, at: 2, callId: 'c1', parentCallId: 'root', agentId: 'writer', durationMs: 2 },
    ];
    const view = seen.reduce(reduceRunView, emptyRunView);
    expect(view.nodes.map((node) => node.callId)).toEqual(['root', 'c1']);
    expect(view.nodes[0]?.children).toEqual(['c1']);
    expect(view.nodes[1]).toMatchObject({ kind: 'call', name: 'writer', input: 'tell', startedAt: 0, text: 'Once upon', status: 'completed' });
  });

  it('a late viewer that missed the run-start reads the run from its run-end: a run node, the root, with the calls it saw under it', () => {
    const base = { runId: 'r', at: 1 } as const;
    // The wire lost the root's run-start; the first event this viewer gets is a call under it.
    const seen: RunEvent[] = [
      { type: 'call-start', ...base, callId: 'c1', parentCallId: 'root', agentId: 'a', input: 'go' },
      { type: 'text-delta', ...base, callId: 'c1', parentCallId: 'root', agentId: 'a', delta: 'hi' },
      { type: 'call-end', ...base, callId: 'c1', parentCallId: 'root', agentId: 'a', durationMs: 0 },
      { type: 'run-end', ...base, at: 2, callId: 'root', parentCallId: null, success: false, error: { name: 'Error', message: 'later' }, durationMs: 2 },
    ];
    const view = seen.reduce(reduceRunView, emptyRunView);
    expect(view.status).toBe('failed');
    expect(view.rootId).toBe('root');
    const root = view.nodes.find((node) => node.callId === 'root');
    expect(root).toMatchObject({ kind: 'run', status: 'failed', children: ['c1'], error: { message: 'later' } });
  });

  it.each([null, undefined, 42, {}])('refuses %p as the events with a ConfigError naming events$', (bad) => {
    expect(() => runView(bad as never)).toThrow(ConfigError);
    expect(() => runView(bad as never)).toThrow(/^runView: events\$ must be an Observable of run events/);
  });
});

describe('invoke over a run gives the same reply as without', () => {
  it('the reply text and the reduced view agree', async () => {
    const writer = defineAgent('writer', () => from(['x', 'y', 'z']));
    const plain = await lastValueFrom(invoke$(writer, 'go'));
    const view = await lastValueFrom(runView(observeRun('r', 'go', (run) => invoke$(writer, 'go', { run }))).pipe(last()));
    expect(view.nodes[0]?.text).toBe(plain);
  });
});
