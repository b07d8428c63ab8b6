import { ConfigError, defineAgent, lastValue, invoke$ } from '@rxagents/core';
import {
  currentHandoffChain,
  currentHandoffDepth,
  handoff,
  handoffChainUsesAsyncContext,
  HandoffContext,
  parallelHandoffs,
  resetHandoffChain,
  runWithHandoffChain,
} from '@rxagents/handoff';

describe('chain threading', () => {
  it('uses AsyncLocalStorage on this runtime', () => {
    expect(handoffChainUsesAsyncContext).toBe(true);
  });

  it('the chain in scope is empty at the top level', () => {
    expect(currentHandoffChain()).toEqual([]);
    expect(currentHandoffDepth()).toBe(0);
  });

  it('runWithHandoffChain runs fn under a chain (oldest first) and returns its result', () => {
    const result = runWithHandoffChain(['intake', 'triage'], () => [currentHandoffChain(), currentHandoffDepth()]);
    expect(result).toEqual([['intake', 'triage'], 2]);
    expect(currentHandoffChain()).toEqual([]);
  });

  it('runWithHandoffChain refuses a chain that is not an array of non-blank ids, which handoffs would misread', () => {
    let ran = false;
    expect(() => runWithHandoffChain('intake' as never, () => (ran = true))).toThrow('runWithHandoffChain: chain must be an array of agent ids, got "intake"');
    expect(() => runWithHandoffChain(['intake', ' '], () => (ran = true))).toThrow('runWithHandoffChain: chain.1 must be a non-blank string, got " "');
    expect(() => runWithHandoffChain(['intake'], 'go' as never)).toThrow(ConfigError);
    expect(() => HandoffContext.of('t').withHandoffChain('intake' as never)).toThrow('HandoffContext.withHandoffChain: handoffChain must be an array, got "intake"');
    expect(() => HandoffContext.of('t').withHandoffChain([''])).toThrow(ConfigError);
    expect(ran).toBe(false);
  });

  it('the chain follows async work started inside, even after an await', async () => {
    const seen = await runWithHandoffChain(['a'], async () => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      return currentHandoffChain();
    });
    expect(seen).toEqual(['a']);
  });

  it('the chain is frozen', () => {
    runWithHandoffChain(['a'], () => expect(Object.isFrozen(currentHandoffChain())).toBe(true));
  });

  it('a handoff started inside an agent chat (after an await) sees the chain it runs under', async () => {
    const seen: (readonly string[])[] = [];
    const leaf = defineAgent('leaf', async () => {
      seen.push(currentHandoffChain());
      return 'leaf done';
    });
    const middle = defineAgent('middle', async () => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      const outcome = await handoff({ agent: leaf }).execute({ id: 'middle' }, { input: 'go' });
      return String(outcome.output);
    });
    await expect(handoff({ agent: middle }).execute({ id: 'root' }, { input: 'go' })).resolves.toMatchObject({ output: 'leaf done' });
    expect(seen).toEqual([['root', 'middle']]);
  });

  it('resetHandoffChain has nothing to clear under AsyncLocalStorage', () => {
    runWithHandoffChain(['a'], () => {
      resetHandoffChain();
      expect(currentHandoffChain()).toEqual(['a']);
    });
  });

  it('100 concurrent parallelHandoffs whose targets hand off again leak no chain between siblings', async () => {
    const seenByLeaf = new Map<string, readonly string[]>();
    const leaves = Array.from({ length: 100 }, (_, i) =>
      defineAgent(`leaf-${i}`, async () => {
        await new Promise((resolve) => setTimeout(resolve, (i * 7) % 5));
        seenByLeaf.set(`leaf-${i}`, currentHandoffChain());
        return `leaf-${i}`;
      }),
    );
    const siblings = leaves.map((leaf, i) =>
      defineAgent(`sibling-${i}`, async () => {
        await new Promise((resolve) => setTimeout(resolve, (i * 3) % 4));
        const outcome = await handoff({ agent: leaf }).execute({ id: `sibling-${i}` }, { input: 'again' });
        return `${outcome.output} via ${outcome.context.handoffChain.join('>')}`;
      }),
    );
    const outcomes = await runWithHandoffChain(['root'], () =>
      parallelHandoffs({ id: 'triage' }, siblings.map((sibling, i) => [sibling, `task ${i}`] as const), { maxConcurrent: 0 }),
    );
    expect(outcomes).toHaveLength(100);
    outcomes.forEach((outcome, i) => {
      expect(outcome.success).toBe(true);
      expect(outcome.handedOffTo).toBe(`sibling-${i}`);
      expect(outcome.context.handoffChain).toEqual(['root', 'triage']);
      expect(outcome.output).toBe(`leaf-${i} via root>triage>sibling-${i}`);
      expect(seenByLeaf.get(`leaf-${i}`)).toEqual(['root', 'triage', `sibling-${i}`]);
    });
  });
});

describe('chain threading without AsyncLocalStorage (module-level fallback)', () => {
  type ChainModule = typeof import('../src/guards/currentHandoffChain');
  let fallback: ChainModule;
  const processWithBuiltins = process as unknown as { getBuiltinModule?: unknown };

  beforeAll(() => {
    const original = processWithBuiltins.getBuiltinModule;
    processWithBuiltins.getBuiltinModule = undefined;
    try {
      jest.isolateModules(() => {
        fallback = jest.requireActual<ChainModule>('../src/guards/currentHandoffChain');
      });
    } finally {
      processWithBuiltins.getBuiltinModule = original;
    }
  });

  afterEach(() => fallback.resetHandoffChain());

  it('falls back when the runtime has no AsyncLocalStorage', () => {
    expect(fallback.handoffChainUsesAsyncContext).toBe(false);
  });

  it('sets the chain for the synchronous part of fn and restores it afterwards', () => {
    const inside = fallback.runWithHandoffChain(['a', 'b'], () => fallback.currentHandoffChain());
    expect(inside).toEqual(['a', 'b']);
    expect(fallback.currentHandoffChain()).toEqual([]);
    expect(fallback.runWithHandoffChain(['x'], () => fallback.runWithHandoffChain(['x', 'y'], () => fallback.currentHandoffDepth()))).toBe(2);
  });

  it('restores the previous chain when fn throws', () => {
    expect(() => fallback.runWithHandoffChain(['a'], () => { throw new Error('boom'); })).toThrow('boom');
    expect(fallback.currentHandoffChain()).toEqual([]);
  });

  it('for a Promise, keeps the chain until it settles', async () => {
    const pending = fallback.runWithHandoffChain(['a'], () => Promise.resolve('done'));
    expect(fallback.currentHandoffChain()).toEqual(['a']);
    await pending;
    await Promise.resolve();
    expect(fallback.currentHandoffChain()).toEqual([]);
  });

  it('resetHandoffChain clears the module-level fallback', () => {
    void fallback.runWithHandoffChain(['leaked'], () => new Promise(() => undefined));
    expect(fallback.currentHandoffChain()).toEqual(['leaked']);
    fallback.resetHandoffChain();
    expect(fallback.currentHandoffChain()).toEqual([]);
  });
});

describe('routing under a chain', () => {
  it('a routed target sees the router in its chain', async () => {
    let seen: readonly string[] = [];
    const target = defineAgent('target', async () => ((seen = currentHandoffChain()), 'ok'));
    const { routingAgent, handoffFilters } = await import('@rxagents/handoff');
    const router = routingAgent({ id: 'router', handoffs: [handoff({ agent: target, condition: handoffFilters.always() })] });
    await runWithHandoffChain(['caller'], () => lastValue(invoke$(router, 'x')));
    expect(seen).toEqual(['caller', 'router']);
  });
});
