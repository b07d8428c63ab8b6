import {
  ChoreographyAlreadyExecutedError,
  ChoreographyEngine,
  ChoreographyEngineOptionsSchema,
  type ChoreographyEvent,
  ChoreographySpec,
  type EventBus,
  executeChoreography,
  executeChoreography$,
} from '@rxagents/choreography';
import { scriptedAgent } from '@rxagents/testing';
import { lastValueFrom, merge, Subject, takeUntil, toArray } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { configErrorOf } from './configErrorOf';
import { step } from './fixtures';

const newScheduler = () => new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
const silent = { warn: () => undefined };

const articleSpec = () =>
  ChoreographySpec.builder('article')
    .initialEvent('request')
    .interaction('research', 'user', 'researcher', 'request', 'researched', 'Collect sources')
    .interaction('draft', 'researcher', 'writer', 'researched', null, 'Write a draft')
    .build();

const echoAgents = () => ({
  researcher: scriptedAgent('researcher', (input) => `sources for ${input.split('Context: ')[1] ?? '?'}`),
  writer: scriptedAgent('writer', (input) => `draft from ${input.split('Context: ')[1] ?? '?'}`),
});

describe('ChoreographyEngine: a run with an input', () => {
  it('the initial events carry the input; the first agents get it as Context, later agents the previous output', async () => {
    const agents = echoAgents();
    const engine = new ChoreographyEngine({ spec: articleSpec(), agents, logger: silent });
    const events: ChoreographyEvent[] = [];
    engine.busEvents$.subscribe((event) => events.push(event));
    const result = await engine.execute({ input: 'RxJS' });
    expect(agents.researcher.inputs).toEqual(['Collect sources\n\nContext: RxJS']);
    expect(agents.writer.inputs).toEqual(['Write a draft\n\nContext: sources for RxJS']);
    expect(events[0]).toEqual({ name: 'request', input: 'RxJS' });
    expect(result.stepResults.map((step) => step.output)).toEqual(['sources for RxJS', 'draft from sources for RxJS']);
  });

  it('an AND-join reads an initial event input as that trigger\'s context', async () => {
    const spec = ChoreographySpec.builder('join')
      .initialEvent('request')
      .interaction('a', 'u', 'A', 'request', 'done-a', 'Do A')
      .interaction({ id: 'join', source: 'A', target: 'J', trigger: ['request', 'done-a'], task: 'Join' })
      .build();
    const joiner = scriptedAgent('J', 'joined');
    await new ChoreographyEngine({ spec, agents: { A: scriptedAgent('A', 'a out'), J: joiner }, logger: silent }).execute({ input: 'the ask' });
    expect(joiner.inputs).toEqual(['Join\n\nContext (request): the ask\n\nContext (done-a): a out']);
  });

  it('execute$ and execute refuse an unknown option with a suggestion, and the engine stays unused', async () => {
    const engine = new ChoreographyEngine({ spec: articleSpec(), agents: echoAgents(), logger: silent });
    await expect(engine.execute({ inptu: 'x' } as never)).rejects.toThrow('ChoreographyEngine.execute options: inptu is not a known option (did you mean input?), got "x"');
    expect(() => engine.execute$({ input: 42 } as never)).toThrow('ChoreographyEngine.execute$ options: input must be a string, got 42');
    await expect(engine.execute({ input: 'ok' })).resolves.toEqual(expect.objectContaining({ success: true, completedCount: 2 }));
    await expect(engine.execute({ input: 'again' })).rejects.toBeInstanceOf(ChoreographyAlreadyExecutedError);
  });
});

describe('executeChoreography: one spec, a fresh engine per run', () => {
  it('runs the same spec and agents once per request, each run independent', async () => {
    const spec = articleSpec();
    const agents = echoAgents();
    const first = await executeChoreography({ spec, agents, input: 'RxJS', logger: silent });
    const second = await executeChoreography({ spec, agents, input: 'agents', logger: silent });
    expect(first.stepResults.map((step) => step.output)).toEqual(['sources for RxJS', 'draft from sources for RxJS']);
    expect(second.stepResults.map((step) => step.output)).toEqual(['sources for agents', 'draft from sources for agents']);
    expect([first.success, second.success, first.pending, second.pending]).toEqual([true, true, [], []]);
  });

  it('is cold: each subscription is its own run, concurrent runs do not mix, and unsubscribing cancels one run only', () => {
    newScheduler().run(({ expectObservable, cold, flush }) => {
      const spec = articleSpec();
      const agents = {
        researcher: scriptedAgent('researcher', (input) => ({ reply: `sources for ${input.split('Context: ')[1]}`, delay: 10 })),
        writer: scriptedAgent('writer', (input) => ({ reply: `draft from ${input.split('Context: ')[1]}`, delay: 10 })),
      };
      const run = (input: string) => executeChoreography$({ spec, agents, input, logger: silent });
      expectObservable(merge(run('a'), run('b'))).toBe('20ms (xy|)', {
        x: expect.objectContaining({ stepResults: [expect.objectContaining({ output: 'sources for a' }), expect.objectContaining({ output: 'draft from sources for a' })] }),
        y: expect.objectContaining({ stepResults: [expect.objectContaining({ output: 'sources for b' }), expect.objectContaining({ output: 'draft from sources for b' })] }),
      });
      // Cancelled at 15 ms, inside the writer's call: that run emits nothing and its writer is aborted.
      expectObservable(run('c').pipe(takeUntil(cold('15ms x')))).toBe('15ms |');
      flush();
      expect(agents.writer.inputs).toEqual(['Write a draft\n\nContext: sources for a', 'Write a draft\n\nContext: sources for b', 'Write a draft\n\nContext: sources for c']);
      expect(agents.writer.abortCount).toBe(1);
    });
  });

  it('reports a bad configuration as a ConfigError: Promise form rejects, Observable form throws a bad option at once, nothing runs', async () => {
    const agents = echoAgents();
    await expect(executeChoreography({ spec: articleSpec(), agents: { researcher: agents.researcher }, input: 'x' })).rejects.toThrow(
      'executeChoreography options: spec.interactions.1.target must name an agent of this engine or one of remoteAgents (interaction "draft"; agents: researcher), got "writer"',
    );
    expect(() => executeChoreography$({ spec: articleSpec(), agents, inptu: 'x' } as never)).toThrow(
      'executeChoreography options: inptu is not a known option (did you mean input?), got "x"',
    );
    expect(() => executeChoreography$({ spec: articleSpec(), agents: { researcher: agents.researcher }, input: 'x' })).toThrow('spec.interactions.1.target must name an agent');
    await expect(executeChoreography({ spec: articleSpec(), agents, bus: {} } as never)).rejects.toThrow('bus is not a known option');
    expect(agents.researcher.inputs).toEqual([]);
  });

  it('cancels a run when its signal aborts', async () => {
    const controller = new AbortController();
    const agents = { researcher: scriptedAgent('researcher', { reply: 'x', delay: 1_000 }), writer: scriptedAgent('writer', 'y') };
    const run = executeChoreography({ spec: articleSpec(), agents, signal: controller.signal, logger: silent });
    controller.abort(new Error('client went away'));
    await expect(run).rejects.toThrow('client went away');
    expect(agents.researcher.abortCount).toBe(1);
  });
});

describe('ChoreographyEngine: build-time coverage checks', () => {
  it('refuses an interaction nobody can trigger, suggesting a close event name', () => {
    const spec = ChoreographySpec.builder('typo')
      .initialEvent('start')
      .interaction('research', 's', 'researcher', 'start', 'researched', 'Research')
      .interaction('draft', 's', 'writer', 'reseached', null, 'Draft')
      .build();
    const error = configErrorOf(() => new ChoreographyEngine({ spec, agents: echoAgents() }));
    expect(error.message).toBe(
      'ChoreographyEngine options: spec.interactions.1.trigger must be an event something publishes: interaction "draft" can never run, as no initial event, external event or runnable interaction publishes "reseached": did you mean "researched"? events: start, researched, got "reseached"',
    );
    expect(error.issues.map((issue) => issue.path)).toEqual(['spec.interactions.1.trigger']);
  });

  it('follows triggers transitively: a loop no initial event enters, and what only it emits, are refused', () => {
    const spec = ChoreographySpec.builder('island')
      .initialEvent('start')
      .interaction('ok', 's', 'a', 'start', null, 'Fine')
      .interaction('ping', 's', 'a', 'pong', 'ping', 'Ping')
      .interaction('pong', 's', 'a', 'ping', 'pong', 'Pong')
      .interaction('after', 's', 'a', 'pong', null, 'After')
      .interaction({ id: 'join', source: 's', target: 'a', trigger: ['start', 'ping'], task: 'Join' })
      .build();
    const error = configErrorOf(() => new ChoreographyEngine({ spec, agents: { a: scriptedAgent('a', 'x') } }));
    expect(error.issues.map((issue) => issue.path)).toEqual([
      'spec.interactions.1.trigger',
      'spec.interactions.2.trigger',
      'spec.interactions.3.trigger',
      'spec.interactions.4.trigger',
    ]);
    expect(error.issues[3]?.rule).toContain('interaction "join" can never run');
    // An external event opens the loop.
    expect(() => new ChoreographyEngine({ spec, agents: { a: scriptedAgent('a', 'x') }, externalEvents: ['ping'] })).not.toThrow();
  });

  it('judges each engine on one spec by its own agents and external events, however many engines came before', () => {
    const spec = ChoreographySpec.builder('island')
      .initialEvent('start')
      .interaction('ok', 's', 'a', 'start', null, 'Fine')
      .interaction('ping', 's', 'b', 'pong', 'ping', 'Ping')
      .interaction('pong', 's', 'a', 'ping', 'pong', 'Pong')
      .build();
    const agents = { a: scriptedAgent('a', 'x'), b: scriptedAgent('b', 'y') };
    const issuesOf = (options: Omit<ConstructorParameters<typeof ChoreographyEngine>[0], 'spec'>) => configErrorOf(() => new ChoreographyEngine({ spec, ...options })).issues.map((issue) => issue.path);
    expect(() => new ChoreographyEngine({ spec, agents, externalEvents: ['ping'] })).not.toThrow();
    expect(issuesOf({ agents })).toEqual(['spec.interactions.1.trigger', 'spec.interactions.2.trigger']);
    expect(issuesOf({ agents: { a: agents.a }, externalEvents: ['pong'] })).toEqual(['spec.interactions.1.target']);
    expect(() => new ChoreographyEngine({ spec, agents: { a: agents.a }, remoteAgents: ['b'], externalEvents: ['pong'] })).not.toThrow();
    expect(issuesOf({ agents })).toEqual(['spec.interactions.1.trigger', 'spec.interactions.2.trigger']);
  });

  it('the schema says the same, and lists every problem at once', () => {
    const spec = ChoreographySpec.builder('ping').initialEvent('go').interaction('ping', 'a', 'b', 'og', null, 'Say ping').build();
    const result = ChoreographyEngineOptionsSchema.safeParse({ spec });
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((issue) => issue.path.join('.'))).toEqual(['spec.interactions.0.target', 'spec.interactions.0.trigger']);
    expect(configErrorOf(() => new ChoreographyEngine({ spec })).message).toContain('target must name an agent of this engine or one of remoteAgents (interaction "ping"; no agent is known), got "b"');
  });

  it('checks a large spec in linear time and hints only the issues the message lists', () => {
    let builder = ChoreographySpec.builder('large').initialEvent('e0');
    for (let i = 0; i < 10_000; i += 1) builder = builder.interaction(`i${i}`, 's', `agent-${i}`, `e${i}`, `e${i + 1}`, 'Go');
    const spec = builder.build();
    const agents = Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`agent${i}`, scriptedAgent(`agent${i}`, 'x')]));
    const error = configErrorOf(() => new ChoreographyEngine({ spec, agents }));
    expect(error.issues).toHaveLength(10_000);
    expect(error.issues[0]?.rule).toContain('did you mean "agent0"?');
    expect(error.issues[9_999]?.rule).toBe('must name an agent of this engine or one of remoteAgents (interaction "i9999")');
    const fixed = Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`agent-${i}`, scriptedAgent(`agent-${i}`, 'x')]));
    expect(() => new ChoreographyEngine({ spec, agents: fixed })).not.toThrow();
  });

  it('refuses an id that is both a local agent and a remote one', () => {
    const error = configErrorOf(() => new ChoreographyEngine({ spec: articleSpec(), agents: echoAgents(), remoteAgents: ['writer'] }));
    expect(error.message).toBe('ChoreographyEngine options: remoteAgents must not name an agent this engine hosts (it is also in agents), got "writer"');
  });
});

/** One shared stream; each engine gets a view whose close() ends only that engine's subscription. */
function sharedBus(): () => EventBus {
  const shared = new Subject<ChoreographyEvent>();
  return () => {
    const closed = new Subject<void>();
    let isClosed = false;
    return {
      events$: shared.pipe(takeUntil(closed)),
      publish: (event) => {
        if (!isClosed) shared.next(event);
      },
      close: () => {
        isClosed = true;
        closed.next();
      },
    };
  };
}

describe('ChoreographyEngine: agents hosted by another engine', () => {
  it('two engines on a shared bus each run only their own interactions; together they run the spec once', () => {
    newScheduler().run(({ expectObservable }) => {
      const spec = ChoreographySpec.builder('article')
        .initialEvent('request')
        .interaction('research', 'user', 'researcher', 'request', 'researched', 'Collect sources')
        .interaction('draft', 'researcher', 'writer', 'researched', 'drafted', 'Write a draft')
        .interaction('review', 'writer', 'reviewer', 'drafted', null, 'Review')
        .build();
      const view = sharedBus();
      const researcher = scriptedAgent('researcher', { reply: 'sources', delay: 10 });
      const reviewer = scriptedAgent('reviewer', { reply: 'ok', delay: 5 });
      const writer = scriptedAgent('writer', { reply: 'a draft', delay: 20 });
      const front = ChoreographyEngine.builder().spec(spec).agents({ researcher, reviewer }).remoteAgent('writer').bus(view()).logger(silent).build();
      const back = new ChoreographyEngine({ spec, agents: { writer }, remoteAgents: ['researcher', 'reviewer'], bus: view(), logger: silent, externalEvents: [] });
      // Both engines publish the initial event; each interaction still runs once, on the engine hosting its agent.
      expectObservable(back.execute$()).toBe('30ms (r|)', {
        r: expect.objectContaining({ success: true, stepResults: [step('draft', 'writer', 'Write a draft\n\nContext: sources', 'a draft', 10, 20)], pending: [] }),
      });
      expectObservable(front.execute$({ input: 'topic' })).toBe('35ms (r|)', {
        r: expect.objectContaining({ success: true, stepResults: [step('research', 'researcher', 'Collect sources\n\nContext: topic', 'sources', 0, 10), step('review', 'reviewer', 'Review\n\nContext: a draft', 'ok', 30, 5)], pending: [] }),
      });
    });
  });

  it('an engine that hosts none of the interactions publishes the initial events and ends', async () => {
    const engine = new ChoreographyEngine({ spec: articleSpec(), remoteAgents: ['researcher', 'writer'] });
    const result = await engine.execute({ input: 'go' });
    expect(result).toEqual(expect.objectContaining({ success: true, stepResults: [], pending: [], timedOut: false }));
    expect(await lastValueFrom(engine.busEvents$.pipe(toArray()))).toEqual([{ name: 'request', input: 'go' }]);
  });
});

describe('ChoreographyEngine: late subscribers', () => {
  it('replay the run from its start to a subscriber that comes mid-run or after the end', () => {
    newScheduler().run(({ expectObservable }) => {
      const engine = new ChoreographyEngine({
        spec: articleSpec(),
        agents: { researcher: scriptedAgent('researcher', { reply: 'sources', delay: 10 }), writer: scriptedAgent('writer', { reply: 'a draft', delay: 20 }) },
        logger: silent,
      });
      expectObservable(engine.execute$({ input: 'x' })).toBe('30ms (r|)', { r: expect.objectContaining({ success: true }) });
      const research = expect.objectContaining({ interactionId: 'research' });
      const draft = expect.objectContaining({ interactionId: 'draft' });
      // Subscribed at 15 ms: the research step (10 ms) is replayed at once, then the draft step live.
      expectObservable(engine.steps$, '15ms ^').toBe('15ms a 14ms (b|)', { a: research, b: draft });
      expectObservable(engine.busEvents$, '15ms ^').toBe('15ms (sr) 11ms |', {
        s: { name: 'request', input: 'x' },
        r: expect.objectContaining({ name: 'researched', output: 'sources' }),
      });
      expectObservable(engine.steps$, '50ms ^').toBe('50ms (ab|)', { a: research, b: draft });
    });
  });
});
