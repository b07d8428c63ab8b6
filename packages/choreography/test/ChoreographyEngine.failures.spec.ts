import { AgentError, AgentTimeoutError, ConfigError } from '@rxagents/core';
import {
  ChoreographyAlreadyExecutedError,
  ChoreographyEngine,
  type ChoreographyEvent,
  ChoreographySpec,
  ChoreographyTimeoutError,
  type EventBus,
  InMemoryEventBus,
} from '@rxagents/choreography';
import { failingAgent, hangingAgent, scriptedAgent } from '@rxagents/testing';
import { asyncScheduler, config, Observable, Subject } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';

const newScheduler = () => new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
const silent = { warn: () => undefined };

/** Matches an instance of `type` with exactly `message`: a step's `error` is the error itself, not its text. */
const anError = (type: new (...args: never[]) => Error, message: string) => ({
  asymmetricMatch: (actual: unknown) => actual instanceof type && actual.message === message,
  toAsymmetricMatcher: () => `${type.name}(${JSON.stringify(message)})`,
});

const articleSpec = () =>
  ChoreographySpec.builder('article')
    .initialEvent('start')
    .interaction('research', 'system', 'researcher', 'start', 'researched', 'Collect sources')
    .interaction('draft', 'researcher', 'writer', 'researched', 'drafted', 'Write a draft')
    .interaction('review', 'writer', 'reviewer', 'drafted', null, 'Review the draft')
    .build();

describe('ChoreographyEngine: timeout', () => {
  it('ends at the timeout, aborts the running agent, and lists never-started ids as pending', () => {
    newScheduler().run(({ expectObservable, flush }) => {
      const writer = hangingAgent('writer');
      const engine = ChoreographyEngine.builder()
        .spec(articleSpec())
        .agents({ researcher: scriptedAgent('researcher', { reply: 'sources', delay: 100 }), writer, reviewer: scriptedAgent('reviewer', 'ok') })
        .timeout(1000)
        .logger(silent)
        .build();
      const timeoutMessage = new ChoreographyTimeoutError('article', 1000).message;
      expectObservable(engine.steps$).toBe('100ms a 899ms (b|)', {
        a: { interactionId: 'research', agentId: 'researcher', input: 'Collect sources', output: 'sources', startedAt: 0, durationMs: 100, success: true },
        b: {
          interactionId: 'draft',
          agentId: 'writer',
          input: 'Write a draft\n\nContext: sources',
          startedAt: 100,
          durationMs: 900,
          success: false,
          error: anError(ChoreographyTimeoutError, timeoutMessage),
        },
      });
      expectObservable(engine.execute$()).toBe('1000ms (r|)', {
        r: expect.objectContaining({ success: false, timedOut: true, pending: ['review'], completedCount: 1, failedCount: 1, totalDurationMs: 1000 }),
      });
      flush();
      expect(writer.callCount).toBe(1);
      expect(writer.aborted).toBe(true);
      expect(timeoutMessage).toBe('Choreography "article" timed out after 1000 ms');
    });
  });

  it('a timed-out run with no failed step still reports success (no step failed), but timedOut and pending tell the truth', () => {
    newScheduler().run(({ expectObservable }) => {
      const spec = ChoreographySpec.builder('orphan')
        .initialEvent('start')
        .interaction('first', 's', 'a', 'start', null, 'Go')
        .interaction('never', 's', 'b', 'approved', null, 'Wait')
        .build();
      // 'approved' would come from outside the spec (a person, another process); it never does.
      const engine = ChoreographyEngine.builder()
        .spec(spec)
        .agents({ a: scriptedAgent('a', 'done'), b: scriptedAgent('b', 'x') })
        .externalEvent('approved')
        .timeout(500)
        .logger(silent)
        .build();
      expectObservable(engine.execute$()).toBe('500ms (r|)', {
        r: expect.objectContaining({ success: true, timedOut: true, pending: ['never'], stepResults: [expect.objectContaining({ interactionId: 'first' })] }),
      });
    });
  });

  it('defaults the timeout to 5 minutes', () => {
    newScheduler().run(({ expectObservable }) => {
      const spec = ChoreographySpec.builder('wait').initialEvent('start').interaction('never', 's', 'b', 'other', null, 'Wait').build();
      const engine = ChoreographyEngine.builder().spec(spec).agent('b', scriptedAgent('b', 'x')).externalEvent('other').logger(silent).build();
      expectObservable(engine.execute$()).toBe('300000ms (r|)', { r: expect.objectContaining({ timedOut: true, pending: ['never'] }) });
    });
  });

  it('an interaction timeout fails its step with the agent timeout', () => {
    newScheduler().run(({ expectObservable }) => {
      const spec = ChoreographySpec.builder('slow')
        .initialEvent('start')
        .interaction({ id: 'slow', source: 's', target: 'sloth', trigger: 'start', emits: null, task: 'Hurry', timeout: 50 })
        .build();
      const engine = ChoreographyEngine.builder().spec(spec).agent('sloth', scriptedAgent('sloth', { reply: 'late', delay: 80 })).logger(silent).build();
      expectObservable(engine.steps$).toBe('50ms (a|)', {
        a: {
          interactionId: 'slow',
          agentId: 'sloth',
          input: 'Hurry',
          startedAt: 0,
          durationMs: 50,
          success: false,
          error: anError(AgentTimeoutError, 'Agent "sloth" did not answer within 50 ms'),
        },
      });
      expectObservable(engine.execute$()).toBe('50ms (r|)', { r: expect.objectContaining({ success: false, failedCount: 1 }) });
    });
  });
});

describe('ChoreographyEngine: failing steps', () => {
  it('refuses at build time a target with no agent, naming the interaction and suggesting the registered id', () => {
    const build = () =>
      ChoreographyEngine.builder()
        .spec(articleSpec())
        .agents({ researcher: scriptedAgent('researcher', 'sources'), writr: scriptedAgent('writr', 'draft'), reviewer: scriptedAgent('reviewer', 'ok') })
        .logger(silent)
        .build();
    expect(build).toThrow(ConfigError);
    expect(build).toThrow(
      'ChoreographyEngine options: spec.interactions.1.target must name an agent of this engine or one of remoteAgents (interaction "draft"; did you mean "writr"? agents: researcher, writr, reviewer), got "writer"',
    );
  });

  const failedResult = expect.objectContaining({
    success: false,
    failedCount: 1,
    completedCount: 0,
    stepResults: [expect.objectContaining({ success: false, error: anError(AgentError, 'Agent "broken" failed: model down') })],
  });

  it.each(['throw', 'error'] as const)('records an agent that fails by %s as a failed step and publishes nothing for it', (mode) => {
    newScheduler().run(({ expectObservable }) => {
      const spec = ChoreographySpec.builder('one').initialEvent('go').interaction('only', 's', 'broken', 'go', 'done', 'Try').build();
      // A thrown failure comes at once; only an erroring one can come late.
      const agent = failingAgent('broken', new Error('model down'), mode === 'error' ? { mode, delay: 5 } : { mode });
      const engine = ChoreographyEngine.builder().spec(spec).agent('broken', agent).logger(silent).build();
      expectObservable(engine.busEvents$).toBe(mode === 'error' ? 's 4ms |' : '(s|)', { s: { name: 'go' } });
      expectObservable(engine.execute$()).toBe(mode === 'error' ? '5ms (r|)' : '(r|)', { r: failedResult });
    });
  });

  it('records an agent that rejects as a failed step', async () => {
    const spec = ChoreographySpec.builder('one').initialEvent('go').interaction('only', 's', 'broken', 'go', 'done', 'Try').build();
    const engine = ChoreographyEngine.builder().spec(spec).agent('broken', failingAgent('broken', new Error('model down'), { mode: 'reject' })).logger(silent).build();
    await expect(engine.execute()).resolves.toEqual(failedResult);
  });
});

describe('ChoreographyEngine: misbehaving agents and subscribers', () => {
  it('ignores an agent that emits after it was aborted at the timeout', () => {
    newScheduler().run(({ expectObservable, flush }) => {
      const spec = ChoreographySpec.builder('late').initialEvent('go').interaction('late', 's', 'stubborn', 'go', 'done', 'Answer').build();
      const stubborn = {
        id: 'stubborn',
        // Ignores its AbortSignal and has no teardown: it still emits at 2000 ms.
        chat: () => new Observable<string>((subscriber) => void asyncScheduler.schedule(() => (subscriber.next('too late'), subscriber.complete()), 2000)),
      };
      const engine = ChoreographyEngine.builder().spec(spec).agent('stubborn', stubborn).timeout(1000).logger(silent).build();
      const events: string[] = [];
      engine.busEvents$.subscribe((event) => events.push(event.name));
      expectObservable(engine.steps$).toBe('1000ms (a|)', { a: expect.objectContaining({ interactionId: 'late', success: false }) });
      expectObservable(engine.execute$()).toBe('1000ms (r|)', { r: expect.objectContaining({ timedOut: true, failedCount: 1 }) });
      flush();
      expect(events).toEqual(['go']);
    });
  });

  it('a steps$ subscriber that throws does not stop the run (RxJS reports the error as unhandled)', async () => {
    const unhandled: unknown[] = [];
    const previous = config.onUnhandledError;
    const allReported = new Promise<void>((resolve) => {
      config.onUnhandledError = (error) => {
        unhandled.push(error);
        if (unhandled.length === 3) resolve();
      };
    });
    try {
      const engine = ChoreographyEngine.builder()
        .spec(articleSpec())
        .agents({ researcher: scriptedAgent('r', 'x'), writer: scriptedAgent('w', 'y'), reviewer: scriptedAgent('v', 'z') })
        .logger(silent)
        .build();
      engine.steps$.subscribe(() => {
        throw new Error('UI bug');
      });
      const result = await engine.execute();
      expect(result.completedCount).toBe(3);
      await allReported;
      expect(unhandled).toEqual([new Error('UI bug'), new Error('UI bug'), new Error('UI bug')]);
    } finally {
      config.onUnhandledError = previous;
    }
  });
});

describe('ChoreographyEngine: runs once, cancellation, bus', () => {
  it('a second execute$ subscription errors; a second execute() rejects; the run closed its bus', async () => {
    const bus = new InMemoryEventBus();
    const spec = ChoreographySpec.builder('one').initialEvent('go').interaction('only', 's', 'a', 'go', null, 'Try').build();
    const engine = ChoreographyEngine.builder().spec(spec).agent('a', scriptedAgent('a', 'ok')).bus(bus).logger(silent).build();
    const result = await engine.execute();
    expect(result.success).toBe(true);
    expect(bus.closed).toBe(true);
    await expect(engine.execute()).rejects.toBeInstanceOf(ChoreographyAlreadyExecutedError);
    await expect(engine.execute()).rejects.toThrow('Choreography "one" has already been executed; an engine runs once');
  });

  it('unsubscribing cancels the run: running agents are aborted, the bus is closed, steps$ completes', () => {
    newScheduler().run(({ expectObservable, flush }) => {
      const bus = new InMemoryEventBus();
      const writer = hangingAgent('writer');
      const engine = ChoreographyEngine.builder().spec(articleSpec()).agents({ researcher: scriptedAgent('r', 'x'), writer, reviewer: scriptedAgent('v', 'z') }).bus(bus).logger(silent).build();
      expectObservable(engine.steps$).toBe('a 9ms |', { a: expect.objectContaining({ interactionId: 'research' }) });
      expectObservable(engine.execute$(), '^ 9ms !').toBe('');
      flush();
      expect(writer.aborted).toBe(true);
      expect(bus.closed).toBe(true);
    });
  });

  it('execute({ signal }) rejects with the reason when aborted and aborts running agents', async () => {
    const writer = hangingAgent('writer');
    const engine = ChoreographyEngine.builder().spec(articleSpec()).agents({ researcher: scriptedAgent('r', 'x'), writer, reviewer: scriptedAgent('v', 'z') }).logger(silent).build();
    const controller = new AbortController();
    const pending = engine.execute({ signal: controller.signal });
    controller.abort(new Error('user left'));
    await expect(pending).rejects.toThrow('user left');
    expect(writer.aborted).toBe(true);
  });

  it('runs on a custom EventBus and closes it', () => {
    newScheduler().run(({ expectObservable, flush }) => {
      const subject = new Subject<ChoreographyEvent>();
      const published: string[] = [];
      let closed = false;
      const bus: EventBus = {
        events$: subject.asObservable(),
        publish: (event) => {
          published.push(event.name);
          subject.next(event);
        },
        close: () => {
          closed = true;
          subject.complete();
        },
      };
      const engine = ChoreographyEngine.builder()
        .spec(articleSpec())
        .agents({ researcher: scriptedAgent('r', { reply: 'x', delay: 1 }), writer: scriptedAgent('w', { reply: 'y', delay: 1 }), reviewer: scriptedAgent('v', { reply: 'z', delay: 1 }) })
        .bus(bus)
        .logger(silent)
        .build();
      expectObservable(engine.execute$()).toBe('---(r|)', { r: expect.objectContaining({ completedCount: 3 }) });
      flush();
      expect(published).toEqual(['start', 'researched', 'drafted']);
      expect(closed).toBe(true);
    });
  });
});

describe('ChoreographyEngine: a malformed event on a bus of your own', () => {
  it('fails the run with a ConfigError naming the field, and aborts the running agent', () => {
    newScheduler().run(({ cold, expectObservable, flush }) => {
      const subject = new Subject<ChoreographyEvent>();
      const bus: EventBus = { events$: subject.asObservable(), publish: (event) => subject.next(event), close: () => subject.complete() };
      const researcher = hangingAgent('researcher');
      const engine = ChoreographyEngine.builder()
        .spec(articleSpec())
        .agents({ researcher, writer: scriptedAgent('w', 'y'), reviewer: scriptedAgent('v', 'z') })
        .bus(bus)
        .logger(silent)
        .build();
      cold('--x').subscribe(() => subject.next({ name: 'researched', output: 42 } as never));
      expectObservable(engine.execute$()).toBe('--#', undefined, expect.objectContaining({ name: 'ConfigError', message: 'ChoreographyEngine bus event: output must be a string when present, got 42' }));
      flush();
      expect(researcher.aborted).toBe(true);
    });
  });
});

describe('ChoreographyEngine options', () => {
  const spec = articleSpec();
  it.each([
    [{}, 'spec'],
    [{ spec, timeout: 0 }, 'timeout'],
    [{ spec, timeout: -5 }, 'timeout'],
    [{ spec, logger: { info: () => undefined } }, 'logger'],
    [{ spec, bus: {} }, 'bus'],
    [{ spec, scheduler: {} }, 'scheduler'],
    [{ spec, agents: { a: { id: 'a' } } }, 'agents'],
    [{ spec, retries: 3 }, 'retries'],
  ])('rejects %p at %s', (options, path) => {
    let error: unknown;
    try {
      new ChoreographyEngine(options as never);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).path).toBe(path);
  });

  it('the builder reports a missing spec', () => {
    expect(() => ChoreographyEngine.builder().build()).toThrow('ChoreographyEngine options: spec must be a ChoreographySpec, got undefined');
  });
});
