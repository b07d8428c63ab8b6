import { map, type SchedulerLike } from 'rxjs';
import { ConfigError, defineAgent, MAX_DELAY_MS } from '@rxagents/core';
import { hangingAgent, scriptedAgent } from '@rxagents/testing';
import {
  ChannelExecutionStrategy,
  ConversationOrchestrator,
  ExecutionModel,
  Patterns,
  TerminationCondition,
  type PatternBuilder,
} from '@rxagents/patterns';
import { testScheduler } from './helpers';

const THIRTY_DAYS = 30 * 86_400_000;
const agent = (id: string) => defineAgent(id, async () => 'ok');

/** A scheduler that records every delay it is asked to wait, on top of `inner`. */
function recording(inner: SchedulerLike): SchedulerLike & { readonly delays: number[] } {
  const delays: number[] = [];
  return {
    delays,
    now: () => inner.now(),
    schedule: ((work: never, delay?: number, state?: never) => {
      delays.push(delay ?? 0);
      return inner.schedule(work, delay, state);
    }) as SchedulerLike['schedule'],
  };
}

/** Every timer-valued option of patterns, as a factory taking the value. */
const timerOptions: ReadonlyArray<readonly [string, (ms: number) => unknown]> = [
  ['debate agentTimeout', (ms) => Patterns.debate({ agents: [agent('a'), agent('b')], agentTimeout: ms })],
  ['debate timeout', (ms) => Patterns.debate({ agents: [agent('a'), agent('b')], timeout: ms })],
  ['debate judgeOptions.timeout', (ms) => Patterns.debate({ agents: [agent('a'), agent('b')], judge: agent('j'), judgeOptions: { timeout: ms } })],
  ['voting agentTimeout', (ms) => Patterns.voting({ agents: [agent('a')], agentTimeout: ms })],
  ['voting timeout', (ms) => Patterns.voting({ agents: [agent('a')], timeout: ms })],
  ['parallel agentTimeout', (ms) => Patterns.parallel({ agents: [agent('a')], agentTimeout: ms })],
  ['parallel timeout', (ms) => Patterns.parallel({ agents: [agent('a')], timeout: ms })],
  ['sequence agentTimeout', (ms) => Patterns.sequence({ agents: [agent('a')], agentTimeout: ms })],
  ['sequence timeout', (ms) => Patterns.sequence({ agents: [agent('a')], timeout: ms })],
  ['supervisor agentTimeout', (ms) => Patterns.supervisor({ supervisor: agent('s'), workers: [agent('w')], agentTimeout: ms })],
  ['supervisor timeout', (ms) => Patterns.supervisor({ supervisor: agent('s'), workers: [agent('w')], timeout: ms })],
  ['orchestrator agentTimeout', (ms) => ConversationOrchestrator.create({ participants: [agent('a')], termination: TerminationCondition.maxMessages(1), agentTimeout: ms })],
  ['orchestrator timeout', (ms) => ConversationOrchestrator.create({ participants: [agent('a')], termination: TerminationCondition.maxMessages(1), timeout: ms })],
  ['fanIn agentTimeout', (ms) => ChannelExecutionStrategy.fanIn({ agentTimeout: ms })],
  ['fanIn timeout', (ms) => ChannelExecutionStrategy.fanIn({ timeout: ms })],
  ['barrier agentTimeout', (ms) => ChannelExecutionStrategy.barrier({ agentTimeout: ms })],
  ['barrier timeout', (ms) => ChannelExecutionStrategy.barrier({ timeout: ms })],
  ['TerminationCondition.timeout', (ms) => TerminationCondition.timeout(ms)],
  ['judgeConvergence timeout', (ms) => TerminationCondition.judgeConvergence(agent('j'), { timeout: ms })],
  [
    'ExecutionModel agentTimeout',
    (ms) =>
      ExecutionModel.create<string>({
        pattern: 'p', agents: [agent('a')], initialState: (s) => s, route: () => [], prompt: (s) => s, aggregate: (s) => s,
        termination: TerminationCondition.maxIterations(1), output: (s) => s, agentTimeout: ms,
      }),
  ],
  [
    'ExecutionModel timeout',
    (ms) =>
      ExecutionModel.create<string>({
        pattern: 'p', agents: [agent('a')], initialState: (s) => s, route: () => [], prompt: (s) => s, aggregate: (s) => s,
        termination: TerminationCondition.maxIterations(1), output: (s) => s, timeout: ms,
      }),
  ],
];

describe('timer-valued options', () => {
  it.each(timerOptions)('%s refuses a delay no timer can wait (30 days, 2^31 ms) with a ConfigError', (_name, make) => {
    for (const ms of [THIRTY_DAYS, 2 ** 31]) {
      expect(() => make(ms)).toThrow(ConfigError);
      expect(() => make(ms)).toThrow(/at most 2147483647/);
    }
  });

  it.each(timerOptions)('%s accepts MAX_DELAY_MS and Infinity (no timeout)', (_name, make) => {
    expect(() => make(MAX_DELAY_MS)).not.toThrow();
    expect(() => make(Infinity)).not.toThrow();
  });

  const builders: ReadonlyArray<readonly [string, (limits: { agentTimeout: number; timeout: number }, scheduler: SchedulerLike) => PatternBuilder<unknown>]> = [
    ['debate', (limits, scheduler) => Patterns.debate({ agents: [scriptedAgent('a', { reply: 'x', delay: 10 }), scriptedAgent('b', { reply: 'y', delay: 10 })], maxRounds: 1, scheduler, ...limits }) as PatternBuilder<unknown>],
    ['voting', (limits, scheduler) => Patterns.voting({ agents: [scriptedAgent('a', { reply: 'x', delay: 10 })], scheduler, ...limits }) as PatternBuilder<unknown>],
    ['parallel', (limits, scheduler) => Patterns.parallel({ agents: [scriptedAgent('a', { reply: 'x', delay: 10 })], scheduler, ...limits }) as PatternBuilder<unknown>],
    ['sequence', (limits, scheduler) => Patterns.sequence({ agents: [scriptedAgent('a', { reply: 'x', delay: 10 })], scheduler, ...limits }) as PatternBuilder<unknown>],
    ['supervisor', (limits, scheduler) => Patterns.supervisor({ supervisor: scriptedAgent('s', { reply: 'FINAL: x', delay: 10 }), workers: [agent('w')], scheduler, ...limits }) as PatternBuilder<unknown>],
  ];

  describe.each(builders)('%s with Infinity for agentTimeout and timeout', (name, make) => {
    it.each(['direct', 'channel'] as const)('%s: runs to the end and never schedules an infinite or clamped timer', (mode) => {
      if (mode === 'channel' && (name === 'sequence' || name === 'supervisor')) return;
      const scheduler = testScheduler();
      scheduler.run(({ expectObservable }) => {
        const clock = recording(scheduler);
        const builder = make({ agentTimeout: Infinity, timeout: Infinity }, clock);
        const pattern = mode === 'direct' ? builder : (builder as PatternBuilder<unknown> & { overChannel(): PatternBuilder<unknown> }).overChannel();
        expectObservable(pattern.execute$('go').pipe(map((r) => r.status))).toBe(`${name === 'debate' ? 20 : 10}ms (c|)`, { c: 'completed' });
        scheduler.flush();
        expect(clock.delays.filter((delay) => !(delay >= 0 && delay <= MAX_DELAY_MS))).toEqual([]);
      });
    });
  });

  it.each(['direct', 'channel'] as const)('%s: a voter that never answers under Infinity limits keeps the vote running (no early timeout)', (mode) => {
    const scheduler = testScheduler();
    scheduler.run(({ expectObservable }) => {
      const clock = recording(scheduler);
      const base = Patterns.voting({ agents: [scriptedAgent('a', { reply: 'yes', delay: 5 }), hangingAgent('slow')], agentTimeout: Infinity, timeout: Infinity, scheduler: clock });
      const vote = mode === 'direct' ? base : base.overChannel();
      expectObservable(vote.snapshots$('Ship?').pipe(map((r) => r.status)), `^ ${MAX_DELAY_MS}ms !`).toBe('5ms r', { r: 'running' });
      scheduler.flush();
      expect(clock.delays.filter((delay) => !(delay >= 0 && delay <= MAX_DELAY_MS))).toEqual([]);
    });
  });

  it('TerminationCondition.timeout(Infinity) never stops a run', () => {
    const stop = TerminationCondition.timeout<unknown>(Infinity);
    expect(stop.evaluate({ state: null, iteration: 0, elapsedMs: Number.MAX_SAFE_INTEGER })).toEqual({ type: 'continue' });
  });
});
