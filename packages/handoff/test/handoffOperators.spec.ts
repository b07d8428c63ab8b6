import { TestScheduler } from 'rxjs/testing';
import { map } from 'rxjs';
import { defineAgent } from '@rxagents/core';
import { scriptedAgent } from '@rxagents/testing';
import { ConditionalHandoff, DefaultHandoff, HandoffChain, HandoffContext, handoffThrough, handoffTo, routeHandoff } from '@rxagents/handoff';

const testScheduler = () => new TestScheduler((actual, expected) => expect(actual).toEqual(expected));

describe('handoff operators', () => {
  it('operator options are strict and checked when the operator is built', () => {
    const billing = defineAgent('billing', async () => 'ok');
    const router = new ConditionalHandoff().otherwise(billing);
    const chain = HandoffChain.builder().add(billing).build();
    expect(() => handoffTo(billing, { timout: 5 } as never)).toThrow('handoff operator options: timout is not a known option (did you mean timeout?)');
    expect(() => routeHandoff(router, { form: { id: 'x' } } as never)).toThrow(/form is not a known option \(did you mean from\?\)/);
    expect(() => handoffThrough(chain, { timeout: 30 * 24 * 3600 * 1000 })).toThrow(/timeout must be a number of milliseconds/);
    expect(() => handoffTo(billing, { from: { id: '' } })).toThrow(/from.id must be a non-blank string/);
    expect(() => handoffTo(billing, { strategy: {} as never })).toThrow(/strategy must be a HandoffStrategy/);
  });

  it('handoffTo hands each context off in order, one at a time (concatMap)', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const billing = scriptedAgent('billing', (input) => ({ reply: input.slice(22, 25), delay: 5 }));
      const contexts$ = cold('a-b|', { a: HandoffContext.of('t-1'), b: HandoffContext.of('t-2') });
      expectObservable(contexts$.pipe(handoffTo(billing), map((r) => `${r.fromAgentId}>${r.toAgentId}:${r.output}`))).toBe('-----x----(y|)', {
        x: 'caller>billing:t-1',
        y: 'caller>billing:t-2',
      });
    });
  });

  it('handoffTo accepts a sender, a strategy and per-call options', () => {
    testScheduler().run(({ cold, expectObservable, flush }) => {
      const slow = scriptedAgent('slow', { reply: 'late', delay: 20 });
      const strategy = new DefaultHandoff();
      const onFailed = jest.fn();
      strategy.addListener({ onFailed });
      expectObservable(cold('a|', { a: HandoffContext.of('t') }).pipe(handoffTo(slow, { from: { id: 'intake' }, strategy, timeout: 10 }), map((r) => `${r.fromAgentId}:${r.success}`))).toBe(
        '10ms (x|)',
        { x: 'intake:false' },
      );
      flush();
      expect(onFailed).toHaveBeenCalledTimes(1);
    });
  });

  it('handoffThrough runs each context through a chain', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const chain = HandoffChain.builder().add(defineAgent('a', async () => '')).add(scriptedAgent('b', { reply: 'B', delay: 2 })).add(scriptedAgent('c', { reply: 'C', delay: 3 })).build();
      expectObservable(cold('x|', { x: HandoffContext.of('t') }).pipe(handoffThrough(chain), map((results) => results.map((r) => r.output).join(',')))).toBe('-----(r|)', { r: 'B,C' });
    });
  });

  it('routeHandoff routes each context', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const router = new ConditionalHandoff().when((context) => 'invoiceId' in context.payload, scriptedAgent('billing', 'paid')).otherwise(scriptedAgent('support', 'hi'));
      const contexts$ = cold('ab|', { a: HandoffContext.of('t-1', { invoiceId: '42' }), b: HandoffContext.of('t-2') });
      expectObservable(contexts$.pipe(routeHandoff(router, { from: { id: 'intake' } }), map((r) => r.toAgentId))).toBe('ab|', { a: 'billing', b: 'support' });
    });
  });
});
