import { TestScheduler } from 'rxjs/testing';
import { EMPTY, map, NEVER, of, throwError, timer } from 'rxjs';
import { AgentError, ConfigError, defineAgent, lastValue, type Agent } from '@rxagents/core';
import { recordingAgent, scriptedAgent } from '@rxagents/testing';
import { ConditionalHandoff, DefaultHandoff, HandoffContext, HandoffContractError, HandoffRoutingError, type HandoffStrategy } from '@rxagents/handoff';

const testScheduler = () => new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
const intake: Agent = defineAgent('intake', async () => '');
const named = (id: string): Agent => defineAgent(id, async () => `${id} here`);

describe('ConditionalHandoff', () => {
  it('refuses routes that are not a predicate function and an agent', () => {
    expect(() => new ConditionalHandoff().when('yes' as never, named('a'))).toThrow(/ConditionalHandoff: routes.0.predicate must be a function/);
    expect(() => new ConditionalHandoff().when(() => true, {} as never)).toThrow(/routes.0.agent must be an agent/);
    expect(() => new ConditionalHandoff().otherwise({ id: 'x' } as never)).toThrow(/ConditionalHandoff: fallback must be an agent/);
    expect(() => new ConditionalHandoff([{ predicate: () => true, agent: named('a'), agnet: 1 } as never])).toThrow(/routes.0.agnet is not a known option \(did you mean agent\?\)/);
  });

  it('refuses two different agents with the same id among its routes and fallback', () => {
    const a = named('a');
    expect(() => new ConditionalHandoff().when(() => true, a).when(() => true, named('a'))).toThrow('ConditionalHandoff: routes.1.agent must not reuse the id "a" of a different agent (routes.0.agent), got "a"');
    expect(() => new ConditionalHandoff().when(() => true, a).otherwise(named('a'))).toThrow(/fallback must not reuse the id "a" of a different agent/);
    expect(new ConditionalHandoff().when(() => false, a).when(() => true, a).otherwise(a).routes).toHaveLength(2);
  });

  it('checks its execute options when called, whatever the strategy', () => {
    const dryRun: HandoffStrategy = { execute$: (from, to, context) => of({ success: true, agentId: to.id, input: '', output: 'dry', startedAt: 0, durationMs: 0, fromAgentId: from.id, toAgentId: to.id, taskId: context.taskId, context } as const), execute: () => Promise.reject(new Error('unused')) };
    expect(() => new ConditionalHandoff().otherwise(named('z')).execute$(dryRun, intake, HandoffContext.of('t'), { signl: undefined } as never)).toThrow(
      'ConditionalHandoff options: signl is not a known option (did you mean signal?)',
    );
  });

  it('routes to the first agent whose predicate matches', async () => {
    const routed = await new ConditionalHandoff()
      .when((context) => 'invoiceId' in context.payload, named('billing'))
      .when(() => true, named('sales'))
      .otherwise(named('support'))
      .execute(new DefaultHandoff(), intake, HandoffContext.of('ticket-7', { invoiceId: '42' }));
    expect(routed).toMatchObject({ success: true, fromAgentId: 'intake', toAgentId: 'billing', output: 'billing here' });
  });

  it('falls back to the otherwise agent', async () => {
    const routed = await new ConditionalHandoff().when(() => false, named('billing')).otherwise(named('support')).execute(new DefaultHandoff(), intake, HandoffContext.of('t'));
    expect(routed.toAgentId).toBe('support');
  });

  it('with no match and no fallback returns a failure whose toAgentId is none', async () => {
    const routed = await new ConditionalHandoff().when(() => false, named('billing')).execute(new DefaultHandoff(), intake, HandoffContext.of('t'));
    expect(routed).toMatchObject({ success: false, agentId: 'none', input: '', fromAgentId: 'intake', toAgentId: 'none' });
    expect(routed).not.toHaveProperty('output');
    expect(routed.error).toBeInstanceOf(HandoffRoutingError);
  });

  it('predicates may return a Promise or an Observable of boolean', async () => {
    const router = new ConditionalHandoff().when(async () => false, named('a')).when(() => of(true), named('b'));
    await expect(router.execute(new DefaultHandoff(), intake, HandoffContext.of('t'))).resolves.toMatchObject({ toAgentId: 'b' });
  });

  it('the first declared match wins even when a later predicate answers sooner', () => {
    testScheduler().run(({ expectObservable }) => {
      const router = new ConditionalHandoff()
        .when(() => timer(10).pipe(map(() => true)), scriptedAgent('slow-but-first', 'first'))
        .when(() => of(true), scriptedAgent('fast-but-second', 'second'));
      expectObservable(router.execute$(new DefaultHandoff(), intake, HandoffContext.of('t')).pipe(map((r) => r.toAgentId))).toBe('10ms (a|)', { a: 'slow-but-first' });
    });
  });

  it('decides as soon as the earlier predicates answered false, without waiting for later ones', () => {
    testScheduler().run(({ expectObservable }) => {
      const router = new ConditionalHandoff()
        .when(() => timer(3).pipe(map(() => false)), named('a'))
        .when(() => timer(5).pipe(map(() => true)), named('b'))
        .when(() => NEVER, named('c'));
      expectObservable(router.route$(HandoffContext.of('t')).pipe(map((agent) => agent?.id))).toBe('5ms (b|)', { b: 'b' });
    });
  });

  it('a predicate that errors fails the routing only when it decides', async () => {
    const oops = new Error('predicate down');
    const decided = await new ConditionalHandoff().when(() => true, named('a')).when(() => throwError(() => oops), named('b')).execute(new DefaultHandoff(), intake, HandoffContext.of('t'));
    expect(decided.toAgentId).toBe('a');
    const failed = await new ConditionalHandoff().when(() => { throw oops; }, named('a')).otherwise(named('z')).execute(new DefaultHandoff(), intake, HandoffContext.of('t'));
    expect(failed).toMatchObject({ success: false, toAgentId: 'none', error: oops });
  });

  it('a predicate that answers a non-boolean (undefined, a Promise of a number) fails the routing with a HandoffContractError', async () => {
    const forgotten = await new ConditionalHandoff().when((() => undefined) as never, named('a')).otherwise(named('z')).execute(new DefaultHandoff(), intake, HandoffContext.of('t'));
    expect(forgotten).toMatchObject({ success: false, toAgentId: 'none', error: expect.any(HandoffContractError) });
    expect(forgotten.error?.message).toMatch(/predicate of the route to "a" answered undefined; it must answer a boolean/);
    const numeric = await new ConditionalHandoff().when((async () => 1) as never, named('a')).execute(new DefaultHandoff(), intake, HandoffContext.of('t'));
    expect(numeric.error).toBeInstanceOf(HandoffContractError);
  });

  it('a strategy that throws, errors or completes without a result gives a failure result, never an error', async () => {
    const custom = (execute$: HandoffStrategy['execute$']): HandoffStrategy => ({ execute$, execute: (...args) => lastValue(execute$(...args)) });
    const router = new ConditionalHandoff().otherwise(named('z'));
    const oops = new Error('strategy bug');
    const thrown = await router.execute(custom(() => { throw oops; }), intake, HandoffContext.of('t'));
    expect(thrown).toMatchObject({ success: false, fromAgentId: 'intake', agentId: 'z', toAgentId: 'z', error: oops });
    const errored = await router.execute(custom(() => throwError(() => oops)), intake, HandoffContext.of('t'));
    expect(errored).toMatchObject({ success: false, toAgentId: 'z', error: oops });
    const empty = await router.execute(custom(() => EMPTY), intake, HandoffContext.of('t'));
    expect(empty).toMatchObject({ success: false, toAgentId: 'z', error: expect.any(HandoffContractError) });
  });

  it('does not ask predicates after a synchronous match', async () => {
    const later = jest.fn(() => true);
    await new ConditionalHandoff().when(() => true, named('a')).when(later, named('b')).execute(new DefaultHandoff(), intake, HandoffContext.of('t'));
    expect(later).not.toHaveBeenCalled();
  });

  it('is immutable: when and otherwise return new routers', () => {
    const base = new ConditionalHandoff().when(() => true, named('a'));
    const extended = base.otherwise(named('z'));
    expect(base.fallback).toBeUndefined();
    expect(extended.routes).toHaveLength(1);
    expect(extended).not.toBe(base);
  });

  it('aborting the signal while a predicate is pending ends with a failure carrying the reason', async () => {
    const receiver = recordingAgent('r');
    const controller = new AbortController();
    const pending = new ConditionalHandoff().when(() => NEVER, receiver).execute(new DefaultHandoff(), intake, HandoffContext.of('t'), { signal: controller.signal });
    controller.abort('stop');
    await expect(pending).resolves.toMatchObject({ success: false, fromAgentId: 'intake', toAgentId: 'none', error: expect.any(AgentError) });
    expect((await pending).error?.cause).toBe('stop');
    expect(receiver.calls).toHaveLength(0);
  });

  it('unsubscribing stops pending predicates and the receiver', () => {
    const receiver = recordingAgent('r', () => NEVER);
    const subscription = new ConditionalHandoff().when(() => true, receiver).execute$(new DefaultHandoff(), intake, HandoffContext.of('t')).subscribe();
    subscription.unsubscribe();
    expect(receiver.abortCount).toBe(1);
  });

  it.each([null, undefined, 42, {}])('refuses %p as the strategy or as route$\'s context with a ConfigError; execute rejects with it', async (bad) => {
    const router = new ConditionalHandoff().when((context) => context.taskId === 't-1', named('billing'));
    const context = HandoffContext.of('t-1');
    expect(() => router.execute$(bad as never, intake, context)).toThrow(/^ConditionalHandoff: handoff must be a handoff strategy/);
    expect(() => router.events$(bad as never, intake, context)).toThrow(ConfigError);
    await expect(router.execute(bad as never, intake, context)).rejects.toThrow(ConfigError);
    expect(() => router.route$(bad as never)).toThrow(/^ConditionalHandoff.route\$: context must be a HandoffContext/);
  });
});
