import { TestScheduler } from 'rxjs/testing';
import { lastValueFrom, VirtualTimeScheduler } from 'rxjs';
import { AgentError, AgentTimeoutError, stream, invoke$ } from '@rxagents/core';
import { failingAgent, hangingAgent, recordingAgent, scriptedAgent } from '@rxagents/testing';

const testScheduler = () => new TestScheduler((actual, expected) => expect(actual).toEqual(expected));

describe('scriptedAgent', () => {
  const agent = () =>
    scriptedAgent('s', [
      { match: 'hello', answer: 'hi there' },
      { match: /invoice/i, answer: { chunks: ['Your ', 'invoice'], delay: 2, interval: 3 } },
      { match: (input) => input.startsWith('!'), answer: { error: new Error('refused'), delay: 4 } },
      { match: 'marbles', answer: { marbles: '-a--b|', values: { a: 'x', b: 'y' } } },
      { match: 'echo', answer: (input) => ({ reply: `echo ${input}`, delay: 1 }) },
    ]);

  it('answers an exact input at once', () => {
    testScheduler().run(({ expectObservable }) => {
      expectObservable(stream(agent(), 'hello')).toBe('(a|)', { a: 'hi there' });
    });
  });

  it('answers a RegExp match with chunks on virtual time', () => {
    testScheduler().run(({ expectObservable }) => {
      expectObservable(stream(agent(), 'my INVOICE')).toBe('--a--(b|)', { a: 'Your ', b: 'invoice' });
    });
  });

  it('answers a function match with a delayed error', () => {
    testScheduler().run(({ expectObservable }) => {
      expectObservable(stream(agent(), '!stop')).toBe('----#', undefined, new AgentError('s', new Error('refused')));
    });
  });

  it('answers from a marble diagram, one frame per millisecond', () => {
    testScheduler().run(({ expectObservable }) => {
      expectObservable(stream(agent(), 'marbles')).toBe('-a--b|', { a: 'x', b: 'y' });
    });
  });

  it('answers from a function of the input', () => {
    testScheduler().run(({ expectObservable }) => {
      expectObservable(invoke$(agent(), 'echo')).toBe('-(a|)', { a: 'echo echo' });
    });
  });

  it('fails with the input quoted when no rule matches', async () => {
    await expect(lastValueFrom(invoke$(agent(), 'unknown'))).rejects.toThrow('scriptedAgent "s" has no rule for input "unknown"');
  });

  it('records inputs and aborts', () => {
    testScheduler().run(({ flush }) => {
      const a = agent();
      invoke$(a, 'hello').subscribe();
      invoke$(a, 'my invoice', { timeout: 1 }).subscribe({ error: () => undefined });
      flush();
      expect(a.inputs).toEqual(['hello', 'my invoice']);
      expect(a.abortCount).toBe(1);
    });
  });

  it('accepts a single fixed answer and agent details', async () => {
    const fixed = scriptedAgent('f', 'always this', { name: 'Fixed', role: 'Parrot' });
    expect(fixed).toMatchObject({ id: 'f', name: 'Fixed', role: 'Parrot' });
    await expect(lastValueFrom(invoke$(fixed, 'anything'))).resolves.toBe('always this');
  });
});

describe('failingAgent', () => {
  it.each(['throw', 'reject', 'error'] as const)('fails by %s, wrapped in AgentError', async (mode) => {
    const cause = new Error('down');
    const agent = failingAgent('f', cause, { mode });
    const error = (await lastValueFrom(invoke$(agent, 'x')).catch((e: unknown) => e)) as AgentError;
    expect(error).toBeInstanceOf(AgentError);
    expect(error.cause).toBe(cause);
    expect(agent.callCount).toBe(1);
  });

  it('errors after a delay on virtual time', () => {
    testScheduler().run(({ expectObservable }) => {
      const cause = new Error('late');
      expectObservable(stream(failingAgent('f', cause, { delay: 3 }), 'x')).toBe('---#', undefined, new AgentError('f', cause));
    });
  });
});

describe('hangingAgent', () => {
  it('never answers and records the abort reason of a timeout', () => {
    testScheduler().run(({ expectObservable, flush }) => {
      const agent = hangingAgent('h');
      expectObservable(stream(agent, 'x', { timeout: 7 })).toBe('-------#', undefined, new AgentTimeoutError('h', 7));
      flush();
      expect(agent.callCount).toBe(1);
      expect(agent.aborted).toBe(true);
      expect(agent.abortReasons[0]).toBeInstanceOf(AgentTimeoutError);
    });
  });

  it('records an abort on unsubscribe', () => {
    const agent = hangingAgent('h');
    const subscription = stream(agent, 'x').subscribe();
    expect(agent.aborted).toBe(false);
    subscription.unsubscribe();
    expect(agent.aborted).toBe(true);
    expect(agent.abortCount).toBe(1);
  });
});

describe('recordingAgent', () => {
  it('records inputs, options and received messages, and answers through the inner agent', async () => {
    const inner = scriptedAgent('inner', 'ok');
    const agent = recordingAgent('r', inner, { name: 'Recorder' });
    const context = [{ role: 'system' as const, content: 'be brief' }];
    await expect(lastValueFrom(invoke$(agent, 'task', { context, metadata: { k: 1 } }))).resolves.toBe('ok');
    agent.receive({ type: 'HANDOFF_REQUEST', from: 'a', to: 'r', payload: { taskId: 't' } });
    expect(agent.inputs).toEqual(['task']);
    expect(agent.calls[0]?.options.context).toBe(context);
    expect(agent.calls[0]?.options.metadata).toEqual({ k: 1 });
    expect(agent.received).toEqual([{ type: 'HANDOFF_REQUEST', from: 'a', to: 'r', payload: { taskId: 't' } }]);
    expect(agent.abortCount).toBe(0);
  });

  it('sees an abort on its recorded call', () => {
    const agent = recordingAgent('r', hangingAgent('inner'));
    stream(agent, 'x').subscribe().unsubscribe();
    expect(agent.calls[0]?.aborted).toBe(true);
    expect(agent.abortCount).toBe(1);
  });
});

describe('scriptedAgent, review regressions', () => {
  it('answers a global RegExp rule on every call, not every other one', async () => {
    const agent = scriptedAgent('g', [
      { match: /invoice/gi, answer: 'billing' },
      { match: () => true, answer: 'fallback' },
    ]);

    const answers = [];
    for (let call = 0; call < 3; call += 1) answers.push(await lastValueFrom(invoke$(agent, 'my invoice')));

    expect(answers).toEqual(['billing', 'billing', 'billing']);
  });

  it('reads marble time progression as milliseconds outside TestScheduler.run too', () => {
    const clock = new VirtualTimeScheduler();
    const agent = scriptedAgent('m', { marbles: '100ms a 9ms (b|)', values: { a: 'x', b: 'y' } }, { scheduler: clock });
    const seen: [number, string][] = [];

    stream(agent, 'hi').subscribe((chunk) => seen.push([clock.now(), chunk]));
    clock.flush();

    expect(seen).toEqual([
      [100, 'x'],
      [110, 'y'],
    ]);
  });
});
