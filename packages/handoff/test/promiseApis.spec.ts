import { ConfigError, defineAgent, type Agent } from '@rxagents/core';
import {
  ConditionalHandoff,
  DefaultHandoff,
  handoff,
  HandoffChain,
  HandoffContext,
  handoffFilters,
  handoffThrough,
  handoffTo,
  handoffToolDescription,
  handoffToolName,
  parallelHandoffs,
  parallelHandoffs$,
  resolveHandoffToolPolicy,
  routeHandoff,
} from '@rxagents/handoff';

const billing = defineAgent('billing', async () => 'paid');

/** Calls `start` and says how it failed: a synchronous throw, or the returned Promise's rejection. */
async function failureOf(start: () => Promise<unknown>): Promise<{ readonly how: 'threw' | 'rejected' | 'resolved'; readonly error?: unknown }> {
  let promise: Promise<unknown>;
  try {
    promise = start();
  } catch (error) {
    return { how: 'threw', error };
  }
  return promise.then(
    () => ({ how: 'resolved' as const }),
    (error: unknown) => ({ how: 'rejected' as const, error }),
  );
}

describe('every Promise API rejects, never throws', () => {
  it('parallelHandoffs without a source rejects with a ConfigError, with tasks or without', async () => {
    for (const tasks of [[[billing, 'x']], []] as const) {
      const failure = await failureOf(() => parallelHandoffs(undefined as never, tasks as never));
      expect(failure.how).toBe('rejected');
      expect(failure.error).toBeInstanceOf(ConfigError);
      expect(String(failure.error)).toContain('parallelHandoffs source: value must be an object with a non-blank id');
    }
    expect(() => parallelHandoffs$({ id: ' ' }, [])).toThrow(ConfigError);
  });

  it('parallelHandoffs with a malformed task or option rejects with a ConfigError', async () => {
    const task = await failureOf(() => parallelHandoffs({ id: 'triage' }, [['billing' as never, 'x']]));
    expect(task.how).toBe('rejected');
    expect(String(task.error)).toContain('parallelHandoffs tasks: 0 must be a [target, prompt] pair');
    const option = await failureOf(() => parallelHandoffs({ id: 'triage' }, [[billing, 'x']], { maxConcurent: 2 } as never));
    expect(option.how).toBe('rejected');
    expect(option.error).toBeInstanceOf(ConfigError);
  });

  it('Handoff.execute rejects on a bad source, request or options', async () => {
    const h = handoff({ agent: billing });
    for (const start of [() => h.execute(null as never, { input: 'x' }), () => h.execute({ id: 't' }, null as never), () => h.execute({ id: 't' }, { input: 'x' }, { sginal: 1 } as never)]) {
      const failure = await failureOf(start);
      expect(failure.how).toBe('rejected');
      expect(failure.error).toBeInstanceOf(ConfigError);
    }
  });

  it('DefaultHandoff, ConditionalHandoff and HandoffChain execute reject on invalid arguments', async () => {
    const strategy = new DefaultHandoff();
    const chain = HandoffChain.builder().add(billing).build();
    const routing = new ConditionalHandoff().otherwise(billing);
    const starts = [
      () => strategy.execute({ id: 'intake' }, { id: 'no-chat' } as never, HandoffContext.of('t')),
      () => strategy.execute({ id: 'intake' }, billing, { taskId: 't' } as never),
      () => routing.execute(strategy, null as never, HandoffContext.of('t')),
      () => chain.execute(strategy, 'not a context' as never),
    ];
    for (const start of starts) {
      const failure = await failureOf(start);
      expect(failure.how).toBe('rejected');
      expect(failure.error).toBeInstanceOf(ConfigError);
    }
  });
});

describe('entry points check their arguments when called', () => {
  it('the handoff operators refuse what is not an agent, a ConditionalHandoff or a HandoffChain at once', () => {
    expect(() => handoffTo({ id: 'billing' } as unknown as Agent)).toThrow('handoffTo: to must be an agent');
    expect(() => routeHandoff({} as never)).toThrow('routeHandoff: routing must be a ConditionalHandoff');
    expect(() => handoffThrough([billing] as never)).toThrow('handoffThrough: chain must be a HandoffChain');
  });

  it('the tool helpers refuse what has no id or is no list of names, with a ConfigError instead of a TypeError', () => {
    expect(() => handoffToolName(null as never)).toThrow('handoffToolName: agent must be an object with a non-blank id');
    expect(() => handoffToolDescription({} as never)).toThrow('handoffToolDescription: agent must be an object with a non-blank id');
    expect(() => resolveHandoffToolPolicy(null as never, undefined)).toThrow('resolveHandoffToolPolicy: targetTools must be an array of tool names');
    expect(() => resolveHandoffToolPolicy(['search'], 5 as never)).toThrow('resolveHandoffToolPolicy: sourceTools must be an array of tool names or undefined');
  });

  it('handoffFilters refuse a condition that is not a function, or a key that is not a string, when built', () => {
    expect(() => handoffFilters.and(handoffFilters.always(), 1 as never)).toThrow('handoffFilters.and: 1 must be a condition (a function)');
    expect(() => handoffFilters.or(null as never)).toThrow('handoffFilters.or: 0 must be a condition (a function)');
    expect(() => handoffFilters.metadata(1 as never, 'x')).toThrow('handoffFilters.metadata: key must be a string');
  });
});
