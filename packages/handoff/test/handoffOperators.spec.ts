import { TestScheduler } from 'rxjs/testing';
import { concatWith, defer, finalize, map, NEVER, timer } from 'rxjs';
import { defineAgent } from '@rxagents/core';
import { scriptedAgent } from '@rxagents/testing';
import { ConditionalHandoff, DefaultHandoff, HandoffChain, HandoffContext, type HandoffResult, type HandoffStrategy, handoffThrough, handoffTo, routeHandoff } from '@rxagents/handoff';

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

  it('handoffTo with concurrency runs that many handoffs at once, results as they end (mergeMap)', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      // t-1 takes 9 ms, t-2 and t-3 take 2 ms: with two at a time, t-3 starts when t-2 ends.
      const billing = scriptedAgent('billing', (input) => ({ reply: input.slice(22, 25), delay: input.includes('t-1') ? 9 : 2 }));
      const contexts$ = cold('(abc|)', { a: HandoffContext.of('t-1'), b: HandoffContext.of('t-2'), c: HandoffContext.of('t-3') });
      expectObservable(contexts$.pipe(handoffTo(billing, { concurrency: 2 }), map((r) => r.output))).toBe('--b-c----(a|)', { a: 't-1', b: 't-2', c: 't-3' });
    });
  });

  it('results carry the task id and the context handed over, so out-of-order results match their requests', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const billing = scriptedAgent('billing', (input) => ({ reply: 'ok', delay: input.includes('t-1') ? 9 : 2 }));
      const contexts = { a: HandoffContext.of('t-1', { invoiceId: 'A' }), b: HandoffContext.of('t-2', { invoiceId: 'B' }) };
      const matched$ = cold('(ab|)', contexts).pipe(
        handoffTo(billing, { concurrency: 2 }),
        map((r) => `${r.taskId}:${String(r.context.payload.invoiceId)}:${r.context === contexts[r.taskId === 't-1' ? 'a' : 'b']}`),
      );
      expectObservable(matched$).toBe('--b------(a|)', { a: 't-1:A:true', b: 't-2:B:true' });
    });
  });

  it('routeHandoff and handoffThrough take a concurrency too; it must be a positive integer or Infinity', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const agent = scriptedAgent('x', (input) => ({ reply: input.slice(22, 25), delay: input.includes('t-1') ? 5 : 1 }));
      const router = new ConditionalHandoff().otherwise(agent);
      const chain = HandoffChain.builder().add(defineAgent('start', async () => '')).add(agent).build();
      const contexts$ = cold('(ab|)', { a: HandoffContext.of('t-1'), b: HandoffContext.of('t-2') });
      expectObservable(contexts$.pipe(routeHandoff(router, { concurrency: Infinity }), map((r) => r.output))).toBe('-b---(a|)', { a: 't-1', b: 't-2' });
      expectObservable(contexts$.pipe(handoffThrough(chain, { concurrency: 2 }), map((results) => results.length))).toBe('-b---(a|)', { a: 1, b: 1 });
    });
    const billing = defineAgent('billing', async () => 'ok');
    expect(() => handoffTo(billing, { concurrency: 0 })).toThrow(/concurrency must be a positive integer/);
    expect(() => handoffTo(billing, { concurrency: 1.5 })).toThrow(/concurrency must be a positive integer/);
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

  it('handoffTo goes on at a strategy\'s first result and stops it, as a chain and a router do', () => {
    testScheduler().run(({ cold, expectObservable, flush }) => {
      const billing = defineAgent('billing', async () => 'unused');
      let open = 0;
      // A strategy of one's own that gives its result after 5 ms and then stays subscribed.
      const lingering: HandoffStrategy = {
        execute$: (from, to, context) =>
          defer(() => {
            open++;
            const result: HandoffResult = { success: true, agentId: to.id, input: '', output: context.taskId, startedAt: 0, durationMs: 5, fromAgentId: from.id, toAgentId: to.id, taskId: context.taskId, context };
            return timer(5).pipe(map(() => result), concatWith(NEVER), finalize(() => open--));
          }),
        execute: () => Promise.reject(new Error('unused')),
      };
      const contexts$ = cold('ab|', { a: HandoffContext.of('t-1'), b: HandoffContext.of('t-2') });
      // One at a time: t-2 waits for t-1's result, not for a completion that never comes.
      expectObservable(contexts$.pipe(handoffTo(billing, { strategy: lingering }), map((r) => r.output))).toBe('5ms a 4ms (b|)', { a: 't-1', b: 't-2' });
      flush();
      expect(open).toBe(0);
    });
  });

  it('handoffTo holds a strategy of your own to its contract: a throw, an error or no result is a failure result, and the stream goes on', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const billing = defineAgent('billing', async () => 'ok');
      const faults: Record<string, () => ReturnType<HandoffStrategy['execute$']>> = {
        t: () => {
          throw new Error('thrown');
        },
        e: () => cold('--#', undefined, new Error('errored')),
        c: () => cold('--|'),
      };
      const strategy: HandoffStrategy = { execute$: (_from, _to, context) => (faults[context.taskId] as () => never)(), execute: () => Promise.reject(new Error('unused')) };
      const contexts$ = cold('tec|', { t: HandoffContext.of('t'), e: HandoffContext.of('e'), c: HandoffContext.of('c') });
      const described = contexts$.pipe(
        handoffTo(billing, { strategy }),
        map((result) => `${result.taskId}:${result.success}:${(result.error as Error).name}:${(result.error as Error).message}`),
      );
      expectObservable(described).toBe('t--e-(c|)', {
        t: 't:false:Error:thrown',
        e: 'e:false:Error:errored',
        c: 'c:false:HandoffContractError:the strategy handing off to "billing" completed without a result',
      });
    });
  });

  it('handoffTo errors the stream with a ConfigError on an item that is no HandoffContext', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const billing = defineAgent('billing', async () => 'ok');
      expectObservable(cold('n|', { n: null as unknown as HandoffContext }).pipe(handoffTo(billing))).toBe(
        '#',
        undefined,
        expect.objectContaining({ name: 'ConfigError', message: expect.stringContaining('handoffTo: context must be a HandoffContext') }),
      );
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
