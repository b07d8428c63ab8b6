import { map } from 'rxjs';
import { ConfigError } from '@rxagents/core';
import { hangingAgent, scriptedAgent } from '@rxagents/testing';
import { ExecutionModel, ExecutionTimeoutError, OrchestratedDriver, runModel, TerminationCondition, type AgentRef, type AgentResult, type ExecutionResult } from '@rxagents/patterns';
import { countLargeArrayCopies, testScheduler } from './helpers';

const counterModel = (agents: AgentRef[], extra: Partial<ExecutionModel<number>> = {}) =>
  ExecutionModel.create<number>({
    pattern: 'count',
    agents,
    initialState: (input) => Number(input),
    route: (_state, iteration) => (iteration < 3 ? agents : []),
    prompt: (state) => String(state),
    aggregate: (state, result) => (result.success ? state + Number(result.output) : state),
    termination: TerminationCondition.of<number>('state >= 10', ({ state }) => (state >= 10 ? { type: 'complete', reason: 'reached 10' } : { type: 'continue' })),
    output: String,
    ...extra,
  });

describe('OrchestratedDriver', () => {
  it('runs the five phases: one snapshot per aggregated result (the last of an iteration counts it), termination after each iteration', () => {
    testScheduler().run(({ expectObservable }) => {
      const plusTwo = scriptedAgent('plus-two', { reply: '2', delay: 10 });
      const states$ = OrchestratedDriver(counterModel([plusTwo]), '5').pipe(map((r) => `${r.status}:${r.state}:${r.iterations}`));
      expectObservable(states$).toBe('10ms a 9ms b 9ms (cz|)', { a: 'running:7:1', b: 'running:9:2', c: 'running:11:3', z: 'completed:11:3' });
    });
  });

  it('ends as completed when routing names no agent', async () => {
    const zero = scriptedAgent('zero', '0');
    const result = await new Promise((resolve) => OrchestratedDriver(counterModel([zero]), '0').subscribe((r) => r.status !== 'running' && resolve(r)));
    expect(result).toMatchObject({ status: 'completed', reason: 'no agent left to route', iterations: 3 });
  });

  it('builds each prompt when the call starts, so with concurrency 1 an agent sees earlier results', async () => {
    const a = scriptedAgent('a', '1');
    const b = scriptedAgent('b', '1');
    await new Promise((resolve) => OrchestratedDriver(counterModel([a, b]), '0').subscribe({ complete: () => resolve(null) }));
    expect([a.inputs[0], b.inputs[0]]).toEqual(['0', '1']);
  });

  it('records agents still working at the overall timeout and ends as failed', () => {
    testScheduler().run(({ expectObservable }) => {
      const result$ = OrchestratedDriver(counterModel([hangingAgent('stuck')], { timeout: 25 }), '0').pipe(
        map((r) => `${r.status}:${r.reason}:${r.results.length && r.results[0]?.success === false && r.results[0].error instanceof ExecutionTimeoutError}`),
      );
      expectObservable(result$).toBe('25ms (ab|)', { a: 'running:undefined:true', b: 'failed:timed out after 25 ms:true' });
    });
  });

  it('validates the model', () => {
    expect(() => counterModel([], {})).toThrow(ConfigError);
    expect(() => counterModel([scriptedAgent('a', '1')], { concurrency: 0 })).toThrow('ExecutionModel: concurrency must be a positive integer, got 0');
  });

  it.each([null, undefined, 42, {}])('runModel and OrchestratedDriver refuse %p as the model, the input or the run with a ConfigError naming it', (bad) => {
    const model = counterModel([scriptedAgent('one', '1')]);
    expect(() => runModel(bad as never, 'go')).toThrow(ConfigError);
    expect(() => runModel(bad as never, 'go')).toThrow(/^runModel: model must be an execution model/);
    expect(() => OrchestratedDriver(bad as never, 'go')).toThrow(/^OrchestratedDriver: model must be an execution model/);
    expect(() => OrchestratedDriver(model, bad as never)).toThrow(/^OrchestratedDriver: input must be a string/);
    if (bad !== undefined) expect(() => runModel(model, 'go', bad as never)).toThrow(/^runModel: run must be a run context/);
  });
});

describe('OrchestratedDriver snapshots', () => {
  const loop = (iterations: number, agent: AgentRef) =>
    ExecutionModel.create<number>({
      pattern: 'loop',
      agents: [agent],
      initialState: () => 0,
      route: () => [agent],
      prompt: () => 'go',
      aggregate: (state) => state + 1,
      termination: TerminationCondition.maxIterations(iterations),
      output: String,
    });

  it('copies no result per step: a snapshot shares the run\'s results until someone reads them', () => {
    const snapshots: ExecutionResult<number>[] = [];
    const copies = countLargeArrayCopies(1_000, () => {
      OrchestratedDriver(loop(3_000, scriptedAgent('fast', 'x')), 'go').subscribe((snapshot) => snapshots.push(snapshot));
    });
    expect(snapshots).toHaveLength(3_001);
    expect(copies).toBe(0);
    // Read afterwards, each snapshot still holds what it held when it was emitted.
    expect(snapshots[0]?.results).toHaveLength(1);
    expect(snapshots[1_234]?.results).toHaveLength(1_235);
    expect((snapshots.at(-1) as ExecutionResult<number>).results).toHaveLength(3_000);
    expect(snapshots[1_234]?.results[1_234]).toBe((snapshots.at(-1) as ExecutionResult<number>).results[1_234]);
  });

  it('gives every snapshot immutable results', () => {
    const snapshots: ExecutionResult<number>[] = [];
    OrchestratedDriver(loop(2, scriptedAgent('fast', 'x')), 'go').subscribe((snapshot) => snapshots.push(snapshot));
    const first = snapshots[0] as ExecutionResult<number>;
    expect(() => (first.results as AgentResult[]).push(first.results[0] as AgentResult)).toThrow(TypeError);
    expect(snapshots.map((s) => s.results.length)).toEqual([1, 2, 2]);
  });
});
