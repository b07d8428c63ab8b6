import { TestScheduler } from 'rxjs/testing';
import { map, NEVER } from 'rxjs';
import { ConfigError, defineAgent } from '@rxagents/core';
import { failingAgent, hangingAgent, scriptedAgent } from '@rxagents/testing';
import { handoff, HandoffCycleError, parallelHandoffs, parallelHandoffs$, runWithHandoffChain } from '@rxagents/handoff';

const testScheduler = () => new TestScheduler((actual, expected) => expect(actual).toEqual(expected));

describe('parallelHandoffs', () => {
  it('options are strict, and maxConcurrent is bounded', () => {
    const billing = defineAgent('billing', async () => 'ok');
    expect(() => parallelHandoffs$({ id: 'src' }, [[billing, 'x']], { maxConcurent: 2 } as never)).toThrow('parallelHandoffs options: maxConcurent is not a known option (did you mean maxConcurrent?)');
    expect(() => parallelHandoffs$({ id: 'src' }, [[billing, 'x']], { maxConcurrent: 2 ** 32 })).toThrow(/maxConcurrent must be an integer .*at most 2147483647/);
  });

  it('refuses two different targets with the same agent id; the same agent twice is fine', () => {
    const billing = defineAgent('billing', async () => 'ok');
    const impostor = defineAgent('billing', async () => 'other');
    expect(() => parallelHandoffs$({ id: 'src' }, [[billing, 'x'], [handoff({ agent: impostor }), 'y']])).toThrow(
      'parallelHandoffs tasks: 1 must not reuse the id "billing" of a different agent (0), got "billing"',
    );
    expect(() => parallelHandoffs$({ id: 'src' }, [[billing, 'x'], [billing, 'y'], [handoff({ agent: billing }), 'z']])).not.toThrow();
  });

  it('refuses a task that is not [agent or Handoff, prompt]', () => {
    const billing = defineAgent('billing', async () => 'ok');
    expect(() => parallelHandoffs$({ id: 'src' }, [[billing, 42]] as never)).toThrow(/parallelHandoffs tasks: 0 must be a \[target, prompt\] pair/);
    expect(() => parallelHandoffs$({ id: 'src' }, [[{ id: 'x' }, 'hi']] as never)).toThrow(/parallelHandoffs tasks: 0 must be a \[target, prompt\] pair/);
    expect(() => parallelHandoffs$({ id: 'src' }, 'tasks' as never)).toThrow(/parallelHandoffs tasks: value must be an array/);
  });

  it('fans out to several specialists and returns results in input order', async () => {
    const billing = defineAgent({ id: 'billing', name: 'Billing', chat: async () => 'charged once' });
    const refund = defineAgent({ id: 'refunds', name: 'Refunds', chat: async () => 'refund started' });
    const triage = defineAgent({ id: 'triage', name: 'Triage', chat: async () => '' });
    const results = await parallelHandoffs(triage, [[billing, 'Why was I charged twice?'], [refund, 'I want a refund for order #42']], { maxConcurrent: 5 });
    expect(results.map((r) => [r.handedOffTo, r.success, r.output, r.context.input])).toEqual([
      ['billing', true, 'charged once', 'Why was I charged twice?'],
      ['refunds', true, 'refund started', 'I want a refund for order #42'],
    ]);
    expect(results.every((r) => typeof r.durationSeconds === 'number')).toBe(true);
  });

  it('keeps input order when later tasks finish first', () => {
    testScheduler().run(({ expectObservable }) => {
      const tasks = [30, 10, 20].map((delay, i) => [scriptedAgent(`a${i}`, { reply: `r${i}`, delay }), `t${i}`] as const);
      expectObservable(parallelHandoffs$({ id: 'src' }, tasks).pipe(map((rs) => rs.map((r) => r.output).join(',')))).toBe('30ms (x|)', { x: 'r0,r1,r2' });
    });
  });

  it('runs at most maxConcurrent at once (default 5); <= 0 is unlimited', () => {
    testScheduler().run(({ expectObservable }) => {
      const tasks = (n: number) => Array.from({ length: n }, (_, i) => [scriptedAgent(`a${i}`, { reply: 'ok', delay: 10 }), 'x'] as const);
      expectObservable(parallelHandoffs$({ id: 's' }, tasks(6)).pipe(map((rs) => rs.length))).toBe('20ms (n|)', { n: 6 });
      expectObservable(parallelHandoffs$({ id: 's' }, tasks(4), { maxConcurrent: 2 }).pipe(map((rs) => rs.length))).toBe('20ms (n|)', { n: 4 });
      expectObservable(parallelHandoffs$({ id: 's' }, tasks(50), { maxConcurrent: 0 }).pipe(map((rs) => rs.length))).toBe('10ms (n|)', { n: 50 });
    });
  });

  it('cancelling (unsubscribing, or aborting its signal) starts none of the tasks still waiting for a slot', async () => {
    const started: string[] = [];
    const tasks = Array.from({ length: 20 }, (_, i) => [defineAgent(`a${i}`, () => (started.push(`a${i}`), NEVER)), 'x'] as const);
    parallelHandoffs$({ id: 's' }, tasks, { maxConcurrent: 2 }).subscribe().unsubscribe();
    expect(started).toEqual(['a0', 'a1']);
    started.length = 0;
    const controller = new AbortController();
    const pending = parallelHandoffs({ id: 's' }, tasks, { maxConcurrent: 2, signal: controller.signal });
    controller.abort(new Error('user left'));
    await expect(pending).rejects.toThrow('user left');
    expect(started).toEqual(['a0', 'a1']);
  });

  it('reports failures as results, including guard errors, without failing the fan-out', async () => {
    const results = await runWithHandoffChain(['ops'], () =>
      parallelHandoffs({ id: 'triage' }, [
        [failingAgent('broken'), 'a'],
        [defineAgent('ops', async () => 'never'), 'b'],
        [defineAgent('fine', async () => 'ok'), 'c'],
      ]),
    );
    expect(results.map((r) => r.success)).toEqual([false, false, true]);
    expect(results[1]?.error).toBeInstanceOf(HandoffCycleError);
    expect(results[1]?.context.handoffChain).toEqual(['ops', 'triage']);
  });

  it('each sibling gets its own copy of the chain: cycle detection and maxDepth are per task', async () => {
    const deep = Array.from({ length: 8 }, (_, i) => `d${i}`);
    const results = await runWithHandoffChain(deep, () =>
      parallelHandoffs({ id: 'triage' }, Array.from({ length: 5 }, (_, i) => [handoff({ agent: defineAgent(`t${i}`, async () => 'ok'), maxDepth: 9 }), 'x'] as const)),
    );
    expect(results.every((r) => r.success)).toBe(true);
    expect(new Set(results.map((r) => r.context.handoffChain)).size).toBe(5);
  });

  it('a Handoff target keeps its own settings', () => {
    testScheduler().run(({ expectObservable }) => {
      const tasks = [[handoff({ agent: hangingAgent('stuck'), timeoutSeconds: 1 }), 'x'] as const];
      expectObservable(parallelHandoffs$({ id: 's' }, tasks).pipe(map((rs) => rs[0]?.error?.constructor.name))).toBe('1s (e|)', { e: 'HandoffTimeoutError' });
    });
  });

  it('an aborted signal aborts every running target and rejects', async () => {
    const stuck = [hangingAgent('a'), hangingAgent('b')];
    const controller = new AbortController();
    const pending = parallelHandoffs({ id: 's' }, stuck.map((agent) => [agent, 'x'] as const), { signal: controller.signal });
    controller.abort(new Error('cancelled'));
    await expect(pending).rejects.toThrow('cancelled');
    expect(stuck.every((agent) => agent.aborted)).toBe(true);
  });

  it('an empty list gives an empty result, and bad options a ConfigError', async () => {
    await expect(parallelHandoffs({ id: 's' }, [])).resolves.toEqual([]);
    expect(() => parallelHandoffs$({ id: 's' }, [], { maxConcurrent: 1.5 })).toThrow(ConfigError);
  });
});
