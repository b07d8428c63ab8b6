import { config as rxjsConfig, lastValueFrom, map, of, toArray } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { AgentError, AgentTimeoutError, ConfigError, defineAgent, type Agent } from '@rxagents/core';
import { failingAgent, hangingAgent, recordingAgent, scriptedAgent } from '@rxagents/testing';
import {
  ConditionalHandoff,
  currentHandoffChain,
  DefaultHandoff,
  defaultHandoffPrompt,
  handoff,
  HandoffChain,
  HandoffContext,
  HandoffContractError,
  HandoffDepthError,
  handoffTo,
  type HandoffResult,
} from '@rxagents/handoff';

const testScheduler = () => new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
const intake: Agent = defineAgent('intake', async () => '');

describe('DefaultHandoff', () => {
  it('delivers a HANDOFF_REQUEST with the payload and task id, then chats with the task line', async () => {
    const billing = recordingAgent('billing', async () => 'Invoice 42 is paid.');
    const context = new HandoffContext({ taskId: 'ticket-7', payload: { invoiceId: '42' }, metadata: { lang: 'en' } });
    const result = await new DefaultHandoff().execute(intake, billing, context);
    expect(billing.received).toEqual([{ type: 'HANDOFF_REQUEST', from: 'intake', to: 'billing', payload: { invoiceId: '42', taskId: 'ticket-7' } }]);
    expect(billing.inputs).toEqual(['Process handoff task: ticket-7 | payload: {"invoiceId":"42"}']);
    expect(billing.calls[0]?.options.metadata).toEqual({ lang: 'en', taskId: 'ticket-7' });
    expect(result).toEqual({
      success: true,
      agentId: 'billing',
      input: 'Process handoff task: ticket-7 | payload: {"invoiceId":"42"}',
      output: 'Invoice 42 is paid.',
      startedAt: expect.any(Number),
      durationMs: expect.any(Number),
      fromAgentId: 'intake',
      toAgentId: 'billing',
      taskId: 'ticket-7',
      context,
    });
    expect(result.context).toBe(context);
  });

  it('the prompt is a setting: a function of the context, per instance or per call; the default is defaultHandoffPrompt', async () => {
    const billing = recordingAgent('billing', async () => 'ok');
    const context = HandoffContext.of('ticket-7', { invoiceId: '42' });
    const handoff = new DefaultHandoff({ prompt: (c) => `Check invoice ${String(c.payload.invoiceId)} (${c.taskId})` });
    await handoff.execute(intake, billing, context);
    await handoff.execute(intake, billing, context, { prompt: (c) => `per call ${c.taskId}` });
    await new DefaultHandoff().execute(intake, billing, context);
    expect(billing.inputs).toEqual(['Check invoice 42 (ticket-7)', 'per call ticket-7', defaultHandoffPrompt(context)]);
    expect(defaultHandoffPrompt(context)).toBe('Process handoff task: ticket-7 | payload: {"invoiceId":"42"}');
    expect(() => new DefaultHandoff({ prompt: 'hello' as never })).toThrow(/DefaultHandoff options: prompt must be a function/);
  });

  it('a prompt that throws or returns a non-string fails the handoff before the receiver is touched', async () => {
    const billing = recordingAgent('billing', async () => 'ok');
    const boom = new Error('no prompt');
    const thrown = await new DefaultHandoff({ prompt: () => { throw boom; } }).execute(intake, billing, HandoffContext.of('t'));
    expect(thrown).toMatchObject({ success: false, input: '', error: boom });
    expect(thrown).not.toHaveProperty('output');
    const wrong = await new DefaultHandoff({ prompt: (() => undefined) as never }).execute(intake, billing, HandoffContext.of('t'));
    expect(wrong.error).toBeInstanceOf(HandoffContractError);
    expect(wrong.success || wrong.error.message).toMatch(/the prompt of the handoff to "billing" returned undefined; it must return a string/);
    expect(billing.received).toHaveLength(0);
    expect(billing.calls).toHaveLength(0);
  });

  it('the reply becomes output; startedAt and durationMs are measured on the scheduler', () => {
    testScheduler().run(({ expectObservable }) => {
      const writer = scriptedAgent('writer', { chunks: ['Dear ', 'customer'], delay: 3, interval: 4 });
      const input = defaultHandoffPrompt(HandoffContext.of('t'));
      expectObservable(new DefaultHandoff().execute$(intake, writer, HandoffContext.of('t'))).toBe('-------(r|)', {
        r: { success: true, agentId: 'writer', input, output: 'Dear customer', startedAt: 0, durationMs: 7, fromAgentId: 'intake', toAgentId: 'writer', taskId: 't', context: expect.any(HandoffContext) },
      });
    });
  });

  it.each(['throw', 'reject', 'error'] as const)('a receiver that fails by %s gives a failure with no output and the AgentError', async (mode) => {
    const cause = new Error('model down');
    const result = await new DefaultHandoff().execute(intake, failingAgent('broken', cause, { mode }), HandoffContext.of('t'));
    expect(result.success).toBe(false);
    expect(result).not.toHaveProperty('output');
    expect(result.error).toBeInstanceOf(AgentError);
    expect((result.error as AgentError).cause).toBe(cause);
  });

  it('a receive that throws gives a failure and chat is never called', async () => {
    const chat = jest.fn(async () => 'never');
    const agent: Agent = { id: 'picky', chat, receive: () => { throw new Error('no thanks'); } };
    const result = await new DefaultHandoff().execute(intake, agent, HandoffContext.of('t'));
    expect(result).toMatchObject({ success: false, agentId: 'picky', toAgentId: 'picky', error: expect.any(AgentError) });
    expect(chat).not.toHaveBeenCalled();
  });

  it('an async receive that rejects fails the handoff with the AgentError and aborts the chat, never an unhandled rejection', async () => {
    const receiver = hangingAgent('picky');
    const cause = new Error('inbox full');
    const agent: Agent = { id: 'picky', chat: receiver.chat, receive: async () => { throw cause; } };
    const result = await new DefaultHandoff().execute(intake, agent, HandoffContext.of('t'));
    expect(result).toMatchObject({ success: false, agentId: 'picky', toAgentId: 'picky', error: expect.any(AgentError) });
    expect((result.error as AgentError).cause).toBe(cause);
    expect(receiver.aborted).toBe(true);
  });

  it('an async receive that rejects after the reply leaves the result alone and reports the error as unhandled', async () => {
    const reported: unknown[] = [];
    const previous = rxjsConfig.onUnhandledError;
    rxjsConfig.onUnhandledError = (error) => reported.push(error);
    try {
      let reject: (error: Error) => void = () => undefined;
      const agent: Agent = { id: 'late', chat: () => of('done'), receive: () => new Promise<void>((_, fail) => (reject = fail)) as never };
      const result = await new DefaultHandoff().execute(intake, agent, HandoffContext.of('t'));
      reject(new Error('too late'));
      await new Promise((resolve) => setImmediate(resolve));
      expect(result).toMatchObject({ success: true, output: 'done' });
      expect(reported).toEqual([expect.objectContaining({ name: 'AgentError', cause: new Error('too late') })]);
    } finally {
      rxjsConfig.onUnhandledError = previous;
    }
  });

  it('a receiver past its timeout fails on virtual time and is aborted', () => {
    testScheduler().run(({ expectObservable, flush }) => {
      const stuck = hangingAgent('stuck');
      expectObservable(new DefaultHandoff({ timeout: 50 }).execute$(intake, stuck, HandoffContext.of('t'))).toBe('50ms (r|)', {
        r: {
          success: false,
          agentId: 'stuck',
          input: defaultHandoffPrompt(HandoffContext.of('t')),
          error: expect.any(AgentTimeoutError),
          startedAt: 0,
          durationMs: 50,
          fromAgentId: 'intake',
          toAgentId: 'stuck',
          taskId: 't',
          context: expect.any(HandoffContext),
        },
      });
      flush();
      expect(stuck.aborted).toBe(true);
    });
  });

  it('per-call options override the defaults', () => {
    testScheduler().run(({ expectObservable }) => {
      const slow = scriptedAgent('slow', { reply: 'late', delay: 30 });
      const handoff = new DefaultHandoff({ timeout: 10 });
      expectObservable(handoff.execute$(intake, slow, HandoffContext.of('t'), { timeout: 100 })).toBe('30ms (r|)', {
        r: expect.objectContaining({ success: true, output: 'late' }),
      });
    });
  });

  it('a per-call option left undefined keeps the default: a timeout: undefined does not disable the default timeout', () => {
    testScheduler().run(({ cold, expectObservable, flush }) => {
      const stuck = hangingAgent('stuck');
      const handoff = new DefaultHandoff({ timeout: 10 });
      const failedAt10 = { r: expect.objectContaining({ success: false, error: expect.any(AgentTimeoutError), durationMs: 10 }) };
      expectObservable(handoff.execute$(intake, stuck, HandoffContext.of('t'), { timeout: undefined })).toBe('10ms (r|)', failedAt10);
      expectObservable(cold('a|', { a: HandoffContext.of('t') }).pipe(handoffTo(stuck, { strategy: handoff, timeout: undefined }))).toBe('10ms (r|)', failedAt10);
      flush();
      expect(stuck.abortCount).toBe(2);
    });
  });

  it('an aborted signal aborts the receiver and gives a failure carrying the reason', async () => {
    const stuck = hangingAgent('stuck');
    const controller = new AbortController();
    const pending = new DefaultHandoff().execute(intake, stuck, HandoffContext.of('t'), { signal: controller.signal });
    controller.abort(new Error('user left'));
    const result = await pending;
    expect(result).toMatchObject({ success: false, error: new Error('user left') });
    expect(stuck.aborted).toBe(true);
    const already = await new DefaultHandoff().execute(intake, stuck, HandoffContext.of('t'), { signal: controller.signal });
    expect(already.success).toBe(false);
    expect(stuck.callCount).toBe(1);
  });

  it('unsubscribing aborts the receiver', () => {
    const stuck = hangingAgent('stuck');
    new DefaultHandoff().execute$(intake, stuck, HandoffContext.of('t')).subscribe().unsubscribe();
    expect(stuck.aborted).toBe(true);
  });

  it('notifies listeners before, after a success and on a failure', async () => {
    const handoff = new DefaultHandoff();
    const events: string[] = [];
    handoff.addListener({
      onBefore: (from, to, context) => events.push(`before ${from.id}->${to.id} ${context.taskId}`),
      onAfter: (result) => events.push(`after ${result.toAgentId}`),
      onFailed: (result) => events.push(`failed ${result.toAgentId}`),
    });
    await handoff.execute(intake, defineAgent('ok', async () => 'fine'), HandoffContext.of('t1'));
    await handoff.execute(intake, failingAgent('bad'), HandoffContext.of('t2'));
    expect(events).toEqual(['before intake->ok t1', 'after ok', 'before intake->bad t2', 'failed bad']);
  });

  it('listener methods are optional, and addListener returns a remover', async () => {
    const handoff = new DefaultHandoff();
    const seen: HandoffResult[] = [];
    handoff.addListener({});
    const remove = handoff.addListener({ onAfter: (result) => seen.push(result) });
    await handoff.execute(intake, defineAgent('ok', async () => 'one'), HandoffContext.of('t'));
    remove();
    await handoff.execute(intake, defineAgent('ok', async () => 'two'), HandoffContext.of('t'));
    expect(seen.map((result) => result.output)).toEqual(['one']);
  });

  it('a throwing listener never breaks a handoff nor silences other listeners; each error is reported as unhandled', async () => {
    const reported: unknown[] = [];
    const previous = rxjsConfig.onUnhandledError;
    rxjsConfig.onUnhandledError = (error) => void reported.push(error);
    try {
      const handoff = new DefaultHandoff();
      const after = jest.fn();
      handoff.addListener({
        onBefore: () => { throw new Error('listener bug'); },
        onAfter: () => { throw new Error('listener bug'); },
        onFailed: () => { throw new Error('listener bug'); },
      });
      handoff.addListener({ onAfter: after });
      await expect(handoff.execute(intake, defineAgent('ok', async () => 'fine'), HandoffContext.of('t'))).resolves.toMatchObject({ success: true, output: 'fine' });
      await expect(handoff.execute(intake, failingAgent('bad'), HandoffContext.of('t'))).resolves.toMatchObject({ success: false });
      expect(after).toHaveBeenCalledTimes(1);
      expect(reported).toHaveLength(4); // onBefore twice, onAfter once, onFailed once
    } finally {
      rxjsConfig.onUnhandledError = previous;
    }
  });

  it('a throwing listener\'s error reaches RxJS\'s onUnhandledError when one is set', async () => {
    const reported: unknown[] = [];
    const previous = rxjsConfig.onUnhandledError;
    rxjsConfig.onUnhandledError = (error) => void reported.push(error);
    try {
      const oops = new Error('listener bug');
      const handoff = new DefaultHandoff();
      handoff.addListener({ onBefore: () => { throw oops; } });
      expect((await handoff.execute(intake, defineAgent('b', async () => 'ok'), HandoffContext.of('t'))).success).toBe(true);
      expect(reported).toEqual([oops]);
    } finally {
      rxjsConfig.onUnhandledError = previous;
    }
  });

  it('the receiver runs under the chain in scope extended with the sender', async () => {
    let seen: readonly string[] = [];
    const probe = defineAgent('probe', async () => {
      await Promise.resolve();
      seen = currentHandoffChain();
      return 'ok';
    });
    await new DefaultHandoff().execute(intake, probe, HandoffContext.of('t').withHandoffChain(['root']));
    expect(seen).toEqual(['root', 'intake']);
  });

  describe('a context\'s maxDepth (or max_depth) limits the handoff as a request\'s maxDepth limits handoff()', () => {
    it('a chain already that deep gives a failure carrying a HandoffDepthError; the receiver is never touched, listeners hear onFailed', async () => {
      const billing = recordingAgent('billing', async () => 'paid');
      const strategy = new DefaultHandoff();
      const heard: string[] = [];
      strategy.addListener({ onBefore: () => heard.push('before'), onFailed: (result) => heard.push(`failed: ${result.error?.name}`) });
      const deep = new HandoffContext({ taskId: 't', handoffChain: ['a', 'b'], maxDepth: 2 });
      const result = await strategy.execute(intake, billing, deep);
      expect(result).toMatchObject({ success: false, fromAgentId: 'intake', toAgentId: 'billing', taskId: 't', context: deep, input: '' });
      expect(result.error).toBeInstanceOf(HandoffDepthError);
      expect(result.error).toMatchObject({ maxDepth: 2, context: { max_depth: 2, current_depth: 2 } });
      expect(billing.calls).toHaveLength(0);
      expect(billing.received).toHaveLength(0);
      expect(heard).toEqual(['failed: HandoffDepthError']);
      // The same limit on a request refuses handoff() at the same depth.
      await expect(handoff({ agent: billing }).execute(intake, { input: 'x', handoffChain: ['a', 'b'], maxDepth: 2 })).rejects.toBeInstanceOf(HandoffDepthError);
    });

    it('below the limit the handoff runs; maxDepth 0 refuses every handoff; max_depth with a declared depth counts too', async () => {
      const billing = recordingAgent('billing', async () => 'paid');
      const strategy = new DefaultHandoff();
      expect((await strategy.execute(intake, billing, new HandoffContext({ taskId: 't', handoffChain: ['a', 'b'], maxDepth: 3 }))).success).toBe(true);
      expect((await strategy.execute(intake, billing, new HandoffContext({ taskId: 't', maxDepth: 0 }))).error).toBeInstanceOf(HandoffDepthError);
      expect((await strategy.execute(intake, billing, new HandoffContext({ taskId: 't', depth: 4, max_depth: 4 }))).error).toMatchObject({ context: { max_depth: 4, current_depth: 4 } });
      expect((await strategy.execute(intake, billing, HandoffContext.of('t'))).success).toBe(true);
      expect(billing.calls).toHaveLength(2);
    });

    it('without a handoffChain, the chain in scope counts: a receiver handing off further is refused at the limit', async () => {
      const strategy = new DefaultHandoff();
      const audit = recordingAgent('audit', async () => 'audited');
      const billing = defineAgent('billing', () =>
        strategy.execute$({ id: 'billing' }, audit, new HandoffContext({ taskId: 't', maxDepth: 1 })).pipe(map((result) => (result.success ? result.output : result.error.name))),
      );
      expect((await strategy.execute(intake, billing, HandoffContext.of('t'))).output).toBe('HandoffDepthError');
      expect(audit.calls).toHaveLength(0);
    });

    it('a chain, a router and handoffTo with a DefaultHandoff honour it; a run ends the handoff node with the error and no call', async () => {
      const billing = recordingAgent('billing', async () => 'paid');
      const deep = new HandoffContext({ taskId: 't', handoffChain: ['a'], maxDepth: 1 });
      const strategy = new DefaultHandoff();
      const steps = await HandoffChain.builder().from().add(billing).add(defineAgent('audit', async () => 'audited')).build().execute(strategy, deep);
      expect(steps.map((step) => step.error?.name)).toEqual(['HandoffDepthError']);
      expect((await new ConditionalHandoff().otherwise(billing).execute(strategy, intake, deep)).error).toBeInstanceOf(HandoffDepthError);
      expect((await lastValueFrom(of(deep).pipe(handoffTo(billing)))).error).toBeInstanceOf(HandoffDepthError);
      const events = await lastValueFrom(strategy.events$(intake, billing, deep).pipe(toArray()));
      expect(events.map((event) => event.type)).toEqual(['run-start', 'run-end']);
      expect(events[1]).toMatchObject({ success: false, error: { name: 'HandoffDepthError', code: 'HANDOFF_DEPTH' } });
      expect(billing.calls).toHaveLength(0);
    });
  });

  it('refuses a timeout a timer cannot wait (30 days) with a ConfigError, at construction and per call', () => {
    const thirtyDays = 30 * 24 * 3600 * 1000;
    expect(() => new DefaultHandoff({ timeout: thirtyDays })).toThrow(/DefaultHandoff options: timeout must be a number of milliseconds greater than 0 and at most 2147483647/);
    expect(() => new DefaultHandoff().execute$(intake, intake, HandoffContext.of('t'), { timeout: thirtyDays })).toThrow(/DefaultHandoff execute options: timeout/);
  });

  it('timeout: Infinity never times out', () => {
    testScheduler().run(({ expectObservable }) => {
      expectObservable(new DefaultHandoff({ timeout: Infinity }).execute$(intake, hangingAgent('stuck'), HandoffContext.of('t')), '^ 60m !').toBe('');
    });
  });

  it('a synchronous re-entrant handoff 10,000 levels deep ends with its result (stack-safe)', () => {
    const strategy = new DefaultHandoff();
    const loop: Agent = defineAgent('loop', (_, { metadata }) => {
      const n = Number(metadata?.n);
      if (n === 0) return of('liftoff');
      const context = new HandoffContext({ taskId: 't', metadata: { n: n - 1 }, handoffChain: [] });
      return strategy.execute$({ id: 'loop' }, loop, context).pipe(map((r) => (r.success ? String(r.output) : `failed: ${String(r.error)}`)));
    });
    let output: unknown = 'no result';
    strategy.execute$(intake, loop, new HandoffContext({ taskId: 't', metadata: { n: 10_000 } })).subscribe((r) => (output = r.output));
    expect(output).toBe('liftoff');
  });

  it('a listener is strict: a misspelt method is a ConfigError, not a listener that never hears anything', () => {
    expect(() => new DefaultHandoff().addListener({ onAftr: () => undefined } as never)).toThrow('HandoffListener: onAftr is not a known option (did you mean onAfter?)');
    expect(() => new DefaultHandoff().addListener({ onBefore: 'log' } as never)).toThrow(/HandoffListener: onBefore must be a function/);
    class Recorder {
      readonly seen: string[] = [];
      onAfter(result: HandoffResult): void {
        this.seen.push(result.toAgentId);
      }
    }
    expect(() => new DefaultHandoff().addListener(new Recorder())).not.toThrow();
  });

  it('refuses a sender without a non-blank id, a receiver that is no agent, a context that is no HandoffContext', () => {
    const billing = defineAgent('billing', async () => 'ok');
    expect(() => new DefaultHandoff().execute$({ id: ' ' }, billing, HandoffContext.of('t'))).toThrow('DefaultHandoff: from must be an object with a non-blank id');
    expect(() => new DefaultHandoff().execute$(intake, { id: 'x' } as never, HandoffContext.of('t'))).toThrow(/DefaultHandoff: to must be an agent/);
    expect(() => new DefaultHandoff().execute$(intake, billing, { taskId: 't' } as never)).toThrow(/DefaultHandoff: context must be a HandoffContext/);
    expect(() => HandoffChain.builder().add(intake).add(billing).build().execute$(new DefaultHandoff(), { taskId: 't' } as never)).toThrow(/HandoffChain: context must be a HandoffContext/);
    expect(() => new ConditionalHandoff().otherwise(billing).execute$(new DefaultHandoff(), { id: '' }, HandoffContext.of('t'))).toThrow(/ConditionalHandoff: from must be/);
  });

  it('validates its options', () => {
    expect(() => new DefaultHandoff({ timeout: -1 })).toThrow(ConfigError);
    expect(() => new DefaultHandoff({ timeout: -1 })).toThrow(
      'DefaultHandoff options: timeout must be a number of milliseconds greater than 0 and at most 2147483647 (about 24.8 days), or Infinity for no timeout, got -1',
    );
    expect(() => new DefaultHandoff().execute$(intake, intake, HandoffContext.of('t'), { scheduler: {} as never })).toThrow(/scheduler/);
  });

  it.each([null, undefined, 42, {}])('defaultHandoffPrompt refuses %p with a ConfigError naming the context', (bad) => {
    expect(() => defaultHandoffPrompt(bad as never)).toThrow(ConfigError);
    expect(() => defaultHandoffPrompt(bad as never)).toThrow(/^defaultHandoffPrompt: context must be a HandoffContext/);
  });

  it('refuses a missing receiver with a ConfigError naming to; execute rejects with it', async () => {
    const source = defineAgent('desk', async () => '');
    const context = HandoffContext.of('t-1');
    expect(() => new DefaultHandoff().execute$(source, undefined as never, context)).toThrow(/^DefaultHandoff: to must be an agent/);
    expect(() => new DefaultHandoff().events$(source, undefined as never, context)).toThrow(ConfigError);
    await expect(new DefaultHandoff().execute(source, undefined as never, context)).rejects.toThrow(/^DefaultHandoff: to must be an agent/);
  });
});
