import { TestScheduler } from 'rxjs/testing';
import { EMPTY, Observable, of, throwError, timer, map } from 'rxjs';
import { AgentError, callAgent, ConfigError, defineAgent, lastValue, type Agent } from '@rxagents/core';
import { failingAgent, hangingAgent, recordingAgent, scriptedAgent } from '@rxagents/testing';
import { DefaultHandoff, HandoffChain, HandoffContext, HandoffContractError, type HandoffStrategy } from '@rxagents/handoff';

const testScheduler = () => new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
const echo = (id: string): Agent => defineAgent(id, async () => `${id}-out`);
/** A step that failed before its receiver got a prompt: an AgentCallResult with no input, output or duration. */
const failure = (fromAgentId: string, toAgentId: string, error: unknown) => ({
  success: false,
  agentId: toAgentId,
  input: '',
  error,
  startedAt: expect.any(Number),
  // Measured on the real clock here (virtual-time measurements: targetFailure.spec.ts).
  durationMs: expect.any(Number),
  fromAgentId,
  toAgentId,
  taskId: 't',
  context: expect.any(HandoffContext),
});

describe('HandoffChain', () => {
  it('refuses a step that is not an agent with an optional predicate function, naming the step', () => {
    expect(() => HandoffChain.builder().add({ id: 'x' } as never)).toThrow('HandoffChain: steps.0.agent must be an agent (an object with a non-blank id and a chat function)');
    expect(() => HandoffChain.builder().add(echo('a')).add(echo('b'), 'yes' as never)).toThrow(/HandoffChain: steps.1.predicate must be a function/);
    expect(() => new HandoffChain([{ agent: echo('a'), predicat: () => true } as never])).toThrow(/steps.0.predicat is not a known option \(did you mean predicate\?\)/);
  });

  it('refuses two different agents with the same id; the same agent twice is fine', () => {
    const a = echo('a');
    expect(() => HandoffChain.builder().add(a).add(echo('b')).add(echo('a'))).toThrow('HandoffChain: steps.2.agent must not reuse the id "a" of a different agent (steps.0.agent), got "a"');
    expect(() => new HandoffChain([{ agent: a }, { agent: echo('a') }])).toThrow(/steps.1.agent must not reuse the id "a"/);
    expect(HandoffChain.builder().add(a).add(echo('b')).add(a).build().steps).toHaveLength(3);
  });

  it('checks its execute options when called, whatever the strategy', () => {
    const chain = HandoffChain.builder().add(echo('a')).add(echo('b')).build();
    const dryRun: HandoffStrategy = { execute$: (from, to, context) => of({ success: true, agentId: to.id, input: '', output: 'dry', startedAt: 0, durationMs: 0, fromAgentId: from.id, toAgentId: to.id, taskId: context.taskId, context } as const), execute: () => Promise.reject(new Error('unused')) };
    expect(() => chain.execute$(dryRun, HandoffContext.of('t'), { timout: 5 } as never)).toThrow('HandoffChain options: timout is not a known option (did you mean timeout?)');
    expect(() => chain.steps$(new DefaultHandoff(), HandoffContext.of('t'), { timeout: -1 })).toThrow(/HandoffChain options: timeout must be a number of milliseconds/);
  });

  it('the first agent is only the source and never runs; later agents run in turn', async () => {
    const intake = recordingAgent('intake');
    const extractor = recordingAgent('extractor', async () => 'fields');
    const writer = recordingAgent('writer', async () => 'letter');
    const results = await HandoffChain.builder().add(intake).add(extractor).add(writer).build().execute(new DefaultHandoff(), HandoffContext.of('t'));
    expect(intake.calls).toHaveLength(0);
    expect(results.map((r) => [r.fromAgentId, r.toAgentId, r.output])).toEqual([
      ['intake', 'extractor', 'fields'],
      ['extractor', 'writer', 'letter'],
    ]);
  });

  it('with a source given (builder from(), or options.from), every agent runs; no dummy source agent', async () => {
    const extractor = recordingAgent('extractor', async () => 'fields');
    const writer = recordingAgent('writer', async () => 'letter');
    const built = HandoffChain.builder().from({ id: 'gateway' }).add(extractor).add(writer).build();
    expect(built.source).toEqual({ id: 'gateway' });
    const results = await built.execute(new DefaultHandoff(), HandoffContext.of('t'));
    expect(results.map((r) => [r.fromAgentId, r.toAgentId, r.output])).toEqual([
      ['gateway', 'extractor', 'fields'],
      ['extractor', 'writer', 'letter'],
    ]);
    const single = await new HandoffChain([{ agent: writer }], { from: { id: 'api' } }).execute(new DefaultHandoff(), HandoffContext.of('t'));
    expect(single.map((r) => `${r.fromAgentId}->${r.toAgentId}`)).toEqual(['api->writer']);
    const caller = await HandoffChain.builder().from().add(writer).build().execute(new DefaultHandoff(), HandoffContext.of('t'));
    expect(caller[0]?.fromAgentId).toBe('caller');
    await expect(HandoffChain.builder().from().build().execute(new DefaultHandoff(), HandoffContext.of('t'))).resolves.toEqual([]);
    expect(HandoffChain.builder().add(writer).build().source).toBeUndefined();
  });

  it('runs every strategy through its public execute$, a DefaultHandoff subclass included', async () => {
    const seen: string[] = [];
    class Tracing extends DefaultHandoff {
      override execute$(...args: Parameters<DefaultHandoff['execute$']>) {
        seen.push(args[1].id);
        return super.execute$(...args);
      }
    }
    const results = await HandoffChain.builder().add(echo('a')).add(echo('b')).add(echo('c')).build().execute(new Tracing(), HandoffContext.of('t'));
    expect(seen).toEqual(['b', 'c']);
    expect(results.map((r) => r.output)).toEqual(['b-out', 'c-out']);
  });

  it('runs a HandoffStrategy of your own (built on callAgent) through its public interface alone', async () => {
    const seen: string[] = [];
    const plain: HandoffStrategy = {
      execute$: (from, to, context, options) => {
        seen.push(`${from.id}->${to.id} timeout ${String(options?.timeout)}`);
        return callAgent(to, String(context.payload.previousOutput ?? context.payload.text)).pipe(
          map((call) => ({ ...call, fromAgentId: from.id, toAgentId: to.id, taskId: context.taskId, context })),
        );
      },
      execute: (from, to, context, options) => lastValue(plain.execute$(from, to, context, options)),
    };
    const upper = recordingAgent('upper', async (input) => input.toUpperCase());
    const writer = recordingAgent('writer');
    const chain = HandoffChain.builder().add(echo('intake')).add(upper).add(failingAgent('broken')).add(writer).build();
    const results = await chain.execute(plain, HandoffContext.of('t', { text: 'hello' }), { timeout: 1_000 });
    expect(seen).toEqual(['intake->upper timeout 1000', 'upper->broken timeout 1000']);
    expect(upper.inputs).toEqual(['hello']);
    expect(results.map((r) => [r.fromAgentId, r.toAgentId, r.success ? r.output : r.error.constructor.name])).toEqual([
      ['intake', 'upper', 'HELLO'],
      ['upper', 'broken', 'AgentError'],
    ]);
    expect(results[1]).toMatchObject({ agentId: 'broken', input: 'HELLO', taskId: 't' });
    expect(writer.calls).toHaveLength(0);
  });

  it('refuses a source without an id and unknown chain options', () => {
    expect(() => HandoffChain.builder().from({ id: '' })).toThrow(/HandoffChain: from.id must be a non-blank string/);
    expect(() => new HandoffChain([], { form: { id: 'x' } } as never)).toThrow(/HandoffChain options: form is not a known option \(did you mean from\?\)/);
  });

  it('the next payload is just { previousOutput }, while task id and metadata carry over', async () => {
    const extractor = recordingAgent('extractor', async () => 'fields');
    const writer = recordingAgent('writer', async () => 'letter');
    const start = new HandoffContext({ taskId: 'invoice-42', payload: { document: 'Invoice text ...' }, metadata: { language: 'de' } });
    await HandoffChain.builder().add(echo('intake')).add(extractor).add(writer).build().execute(new DefaultHandoff(), start);
    expect(extractor.inputs).toEqual(['Process handoff task: invoice-42 | payload: {"document":"Invoice text ..."}']);
    expect(writer.inputs).toEqual(['Process handoff task: invoice-42 | payload: {"previousOutput":"fields"}']);
    expect(writer.calls[0]?.options.metadata).toEqual({ language: 'de', taskId: 'invoice-42' });
  });

  it('each step gets the prompt built from its own context only: the previous reply, never the previous prompt', async () => {
    const upper = recordingAgent('upper', async (input) => input.toUpperCase());
    const exclaim = recordingAgent('exclaim', async (input) => `${input}!`);
    const prompt = (context: HandoffContext) => String(context.payload.previousOutput ?? context.payload.text);
    const results = await HandoffChain.builder().add(echo('intake')).add(upper).add(exclaim).build()
      .execute(new DefaultHandoff({ prompt }), HandoffContext.of('t', { text: 'hello' }));
    expect(upper.inputs).toEqual(['hello']);
    expect(exclaim.inputs).toEqual(['HELLO']);
    expect(results.map((r) => r.output)).toEqual(['HELLO', 'HELLO!']);
  });

  it('each result carries the task id and the context its step was handed', async () => {
    const start = HandoffContext.of('invoice-42', { document: 'text' });
    const results = await HandoffChain.builder().add(echo('intake')).add(echo('extractor')).add(echo('writer')).build().execute(new DefaultHandoff(), start);
    expect(results.map((r) => r.taskId)).toEqual(['invoice-42', 'invoice-42']);
    expect(results[0]?.context).toBe(start);
    expect(results[1]?.context.payload).toEqual({ previousOutput: 'extractor-out' });
  });

  it('a step whose predicate is false is skipped; the next step receives from the last agent that ran', async () => {
    const translator = recordingAgent('translator', async () => 'übersetzt');
    const chain = HandoffChain.builder()
      .add(echo('intake'))
      .add(echo('extractor'))
      .add(translator, (context) => context.metadata.language === 'de')
      .add(echo('writer'))
      .build();
    const english = await chain.execute(new DefaultHandoff(), new HandoffContext({ taskId: 't', metadata: { language: 'en' } }));
    expect(translator.calls).toHaveLength(0);
    expect(english.map((r) => `${r.fromAgentId}->${r.toAgentId}`)).toEqual(['intake->extractor', 'extractor->writer']);
    const german = await chain.execute(new DefaultHandoff(), new HandoffContext({ taskId: 't', metadata: { language: 'de' } }));
    expect(german.map((r) => `${r.fromAgentId}->${r.toAgentId}`)).toEqual(['intake->extractor', 'extractor->translator', 'translator->writer']);
  });

  it('predicates may answer later, as a Promise or an Observable', async () => {
    const chain = HandoffChain.builder()
      .add(echo('a'))
      .add(echo('b'), async () => false)
      .add(echo('c'), () => of(true))
      .add(echo('d'), () => of<boolean>())
      .build();
    const results = await chain.execute(new DefaultHandoff(), HandoffContext.of('t'));
    expect(results.map((r) => r.toAgentId)).toEqual(['c']);
  });

  it('stops at the first failed step', async () => {
    const writer = recordingAgent('writer');
    const results = await HandoffChain.builder().add(echo('a')).add(echo('b')).add(failingAgent('broken')).add(writer).build().execute(new DefaultHandoff(), HandoffContext.of('t'));
    expect(results.map((r) => [r.toAgentId, r.success])).toEqual([['b', true], ['broken', false]]);
    expect(writer.calls).toHaveLength(0);
  });

  it('a predicate that throws fails its step and stops the chain', async () => {
    const oops = new Error('predicate bug');
    const results = await HandoffChain.builder().add(echo('a')).add(echo('b'), () => { throw oops; }).add(echo('c')).build().execute(new DefaultHandoff(), HandoffContext.of('t'));
    expect(results).toEqual([failure('a', 'b', oops)]);
  });

  describe('user code that breaks its contract ends the chain with a failure result, never a crash or a hang', () => {
    const forgotten = (() => undefined) as never;

    it('a predicate that answers undefined (a forgotten return false) on the first step', async () => {
      const results = await HandoffChain.builder().add(echo('a')).add(echo('b'), forgotten).add(echo('c')).build().execute(new DefaultHandoff(), HandoffContext.of('t'));
      expect(results).toEqual([failure('a', 'b', expect.any(HandoffContractError))]);
      expect(results[0]?.error?.message).toMatch(/predicate of step "b" answered undefined; it must answer a boolean/);
    });

    it('a predicate that answers undefined on a later step, after an asynchronous step', async () => {
      const results = await HandoffChain.builder().add(echo('a')).add(echo('b')).add(echo('c'), forgotten).build().execute(new DefaultHandoff(), HandoffContext.of('t'));
      expect(results.map((r) => [r.toAgentId, r.success])).toEqual([['b', true], ['c', false]]);
      expect(results[1]?.error).toBeInstanceOf(HandoffContractError);
    });

    it.each([
      ['a number', () => 1],
      ['null', () => null],
      ['a string', () => 'yes'],
      ['a Promise of undefined', async () => undefined],
      ['an Observable of a number', () => of(1)],
    ])('a predicate that answers %s', async (_, predicate) => {
      const results = await HandoffChain.builder().add(echo('a')).add(echo('b')).add(echo('c'), predicate as never).build().execute(new DefaultHandoff(), HandoffContext.of('t'));
      expect(results.map((r) => [r.toAgentId, r.success, r.error?.constructor])).toEqual([['b', true, undefined], ['c', false, HandoffContractError]]);
    });

    const custom = (execute$: HandoffStrategy['execute$']): HandoffStrategy => ({ execute$, execute: (...args) => lastValue(execute$(...args)) });

    it('a strategy whose execute$ throws', async () => {
      const oops = new Error('strategy bug');
      const throwing = custom(() => {
        throw oops;
      });
      const results = await HandoffChain.builder().add(echo('a')).add(echo('b')).build().execute(throwing, HandoffContext.of('t'));
      expect(results).toEqual([failure('a', 'b', oops)]);
    });

    it('a strategy that completes without a result, or errors', async () => {
      const empty = await HandoffChain.builder().add(echo('a')).add(echo('b')).build().execute(custom(() => EMPTY), HandoffContext.of('t'));
      expect(empty).toEqual([failure('a', 'b', expect.any(HandoffContractError))]);
      const oops = new Error('strategy down');
      const errored = await HandoffChain.builder().add(echo('a')).add(echo('b')).build().execute(custom(() => throwError(() => oops)), HandoffContext.of('t'));
      expect(errored).toEqual([failure('a', 'b', oops)]);
    });

    it('a strategy that emits its result but never completes: the step is stopped once the chain goes on', async () => {
      const running = new Set<string>();
      const lingering = custom(
        (from, to, context) =>
          new Observable((subscriber) => {
            running.add(to.id);
            subscriber.next({ success: true, agentId: to.id, input: '', output: `${to.id}-out`, startedAt: 0, durationMs: 0, fromAgentId: from.id, toAgentId: to.id, taskId: context.taskId, context });
            return () => running.delete(to.id);
          }),
      );
      const results = await HandoffChain.builder().from().add(echo('a')).add(echo('b')).add(echo('c')).build().execute(lingering, HandoffContext.of('t'));
      expect(results.map((result) => result.output)).toEqual(['a-out', 'b-out', 'c-out']);
      expect([...running]).toEqual([]);
    });
  });

  it('returns [] for fewer than two agents', async () => {
    await expect(HandoffChain.builder().build().execute(new DefaultHandoff(), HandoffContext.of('t'))).resolves.toEqual([]);
    const lone = recordingAgent('lone');
    await expect(HandoffChain.builder().add(lone).build().execute(new DefaultHandoff(), HandoffContext.of('t'))).resolves.toEqual([]);
    expect(lone.calls).toHaveLength(0);
  });

  it('steps$ emits each step result as it arrives, on virtual time', () => {
    testScheduler().run(({ expectObservable }) => {
      const chain = HandoffChain.builder()
        .add(echo('a'))
        .add(scriptedAgent('b', { reply: 'B', delay: 2 }))
        .add(scriptedAgent('c', { reply: 'C', delay: 3 }), () => timer(1).pipe(map(() => true)))
        .build();
      expectObservable(chain.steps$(new DefaultHandoff(), HandoffContext.of('t')).pipe(map((r) => `${r.toAgentId}:${r.output}:${r.durationMs}`))).toBe('--x---(y|)', {
        x: 'b:B:2',
        y: 'c:C:3',
      });
    });
  });

  it('execute$ emits one array of results', () => {
    testScheduler().run(({ expectObservable }) => {
      const chain = HandoffChain.builder().add(echo('a')).add(scriptedAgent('b', { reply: 'B', delay: 5 })).build();
      expectObservable(chain.execute$(new DefaultHandoff(), HandoffContext.of('t')).pipe(map((results) => results.length))).toBe('-----(n|)', { n: 1 });
    });
  });

  it('cancelling a chain aborts the running agent', () => {
    const stuck = hangingAgent('stuck');
    const after = recordingAgent('after');
    const subscription = HandoffChain.builder().add(echo('a')).add(stuck).add(after).build().execute$(new DefaultHandoff(), HandoffContext.of('t')).subscribe();
    subscription.unsubscribe();
    expect(stuck.aborted).toBe(true);
    expect(after.calls).toHaveLength(0);
  });

  it.each([
    ['a boolean', () => true],
    ['an Observable answering at once', () => of(true)],
  ])('cancelling a chain aborts an agent whose predicate answered with %s', (_, predicate) => {
    const stuck = hangingAgent('stuck');
    const subscription = HandoffChain.builder().add(echo('a')).add(stuck, predicate).build().execute$(new DefaultHandoff(), HandoffContext.of('t')).subscribe();
    expect(stuck.callCount).toBe(1);
    subscription.unsubscribe();
    expect(stuck.aborted).toBe(true);
  });

  it('aborting the signal aborts the running agent and ends with its failure', async () => {
    const stuck = hangingAgent('stuck');
    const controller = new AbortController();
    const pending = HandoffChain.builder().add(echo('a')).add(echo('b')).add(stuck).add(echo('c')).build().execute(new DefaultHandoff(), HandoffContext.of('t'), { signal: controller.signal });
    await new Promise((resolve) => setImmediate(resolve));
    controller.abort('stop');
    const results = await pending;
    expect(results.map((r) => [r.toAgentId, r.success])).toEqual([['b', true], ['stuck', false]]);
    expect(results[1]?.error).toBeInstanceOf(AgentError);
    expect(results[1]?.error).toMatchObject({ agentId: 'stuck', cause: 'stop' });
    expect(stuck.aborted).toBe(true);
  });

  it('an already aborted signal ends with a failure carrying the reason, not an empty list', async () => {
    const b = recordingAgent('b');
    const controller = new AbortController();
    controller.abort('stop');
    const results = await HandoffChain.builder().add(echo('a')).add(b).build().execute(new DefaultHandoff(), HandoffContext.of('t'), { signal: controller.signal });
    expect(results.map((r) => [r.fromAgentId, r.toAgentId, r.success, r.error?.cause])).toEqual([['a', 'b', false, 'stop']]);
    expect(results[0]?.error).toBeInstanceOf(AgentError);
    expect(b.calls).toHaveLength(0);
  });

  it('aborting the signal while a predicate is pending ends with a failure carrying the reason', async () => {
    const b = recordingAgent('b');
    const controller = new AbortController();
    const pending = HandoffChain.builder().add(echo('a')).add(b, () => new Promise<boolean>(() => undefined)).build().execute(new DefaultHandoff(), HandoffContext.of('t'), { signal: controller.signal });
    controller.abort('stop');
    const results = await pending;
    expect(results.map((r) => [r.toAgentId, r.success, r.error?.cause])).toEqual([['b', false, 'stop']]);
    expect(b.calls).toHaveLength(0);
  });

  it('runs 10,000 synchronous steps without growing the stack', async () => {
    const builder = HandoffChain.builder();
    for (let index = 0; index <= 10_000; index += 1) builder.add(defineAgent(`s${index}`, () => of('x')));
    const results = await builder.build().execute(new DefaultHandoff(), HandoffContext.of('t'));
    expect(results).toHaveLength(10_000);
    expect(results.every((r) => r.success)).toBe(true);
  });

  it('build() snapshots the steps', () => {
    const builder = HandoffChain.builder().add(echo('a'));
    const chain = builder.build();
    builder.add(echo('b'));
    expect(chain.steps).toHaveLength(1);
  });

  it.each([null, undefined, 42, {}])('refuses %p as the strategy with a ConfigError naming handoff; execute rejects with it', async (bad) => {
    const chain = HandoffChain.builder().add(echo('a')).add(echo('b')).build();
    const context = HandoffContext.of('t-1');
    expect(() => chain.execute$(bad as never, context)).toThrow(/^HandoffChain: handoff must be a handoff strategy/);
    expect(() => chain.steps$(bad as never, context)).toThrow(ConfigError);
    expect(() => chain.events$(bad as never, context)).toThrow(ConfigError);
    await expect(chain.execute(bad as never, context)).rejects.toThrow(ConfigError);
  });
});
