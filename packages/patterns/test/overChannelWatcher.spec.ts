import { map, type Observable } from 'rxjs';
import { scriptedAgent } from '@rxagents/testing';
import { type AgentResult, type ChannelBackendOptions, type ExecutionResult, MessageDroppedError, Patterns, type PatternChannel } from '@rxagents/patterns';
import type { StreamingChannel } from '@rxagents/streaming';
import { debater, testScheduler } from './helpers';

// An onChannel watcher that gives up on the channel from inside its own async handler must not stop the run.
describe('overChannel: a watcher that unsubscribes itself from its async handler', () => {
  const quitter = {
    onChannel: (channel: PatternChannel) => {
      const watcher = channel.subscribe(async (_item: unknown) => {
        watcher.unsubscribe();
        await Promise.resolve();
      });
    },
  };

  it('a voting run still ends (FanIn)', () => {
    testScheduler().run(({ expectObservable }) => {
      const agents = ['a', 'b', 'c'].map((id) => scriptedAgent(id, { reply: 'yes', delay: 1 }));
      const vote = Patterns.voting({ agents }).overChannel(quitter);
      expectObservable(vote.execute$('Ship?').pipe(map((result) => result.status))).toBe('1ms (r|)', { r: 'completed' });
    });
  });

  it('a parallel run still ends (Barrier)', () => {
    testScheduler().run(({ expectObservable }) => {
      const agents = ['a', 'b', 'c'].map((id) => scriptedAgent(id, { reply: id, delay: 1 }));
      const parallel = Patterns.parallel({ agents }).overChannel(quitter);
      expectObservable(parallel.execute$('x').pipe(map((result) => result.status))).toBe('1ms (r|)', { r: 'completed' });
    });
  });

  it('a debate still ends (Conversation)', () => {
    testScheduler().run(({ expectObservable }) => {
      const debate = Patterns.debate({ agents: [debater('pro', 1), debater('con', 1)], maxRounds: 2 }).overChannel(quitter);
      expectObservable(debate.execute$('Release today?').pipe(map((result) => [result.status, result.iterations]))).toBe('4ms (r|)', { r: ['completed', 2] });
    });
  });
});

// A watcher subscribed in onChannel hears each message before the run does; closing the channel there drops the message for the run.
describe('overChannel: a watcher that closes the channel on a message the run has not read yet', () => {
  const closer = {
    onChannel: (channel: PatternChannel) => {
      channel.subscribe((item: unknown) => {
        if ((item as { speaker?: string }).speaker === 'con') channel.close();
      });
    },
  };

  it('a debate ends as failed with MessageDroppedError instead of waiting forever', () => {
    testScheduler().run(({ expectObservable }) => {
      const debate = Patterns.debate({ agents: [debater('pro', 1), debater('con', 1)], maxRounds: 3 }).overChannel(closer);
      const end$ = debate.execute$('Release today?').pipe(map((result) => [result.status, result.error instanceof MessageDroppedError, result.iterations]));
      expectObservable(end$).toBe('2ms (r|)', { r: ['failed', true, 0] });
    });
  });
});

describe('overChannel: a watcher that closes the channel on the last result, before the run has read it', () => {
  const closeOn = (agentId: string) => ({
    onChannel: (channel: PatternChannel) => {
      channel.subscribe((item: unknown) => {
        if ((item as { agentId?: string }).agentId === agentId) channel.close();
      });
    },
  });

  it.each(['voting', 'parallel'] as const)('%s ends as failed with MessageDroppedError, not completed without that result', (kind) => {
    testScheduler().run(({ expectObservable }) => {
      const agents = [scriptedAgent('a', { reply: 'yes', delay: 1 }), scriptedAgent('b', { reply: 'yes', delay: 2 }), scriptedAgent('c', { reply: 'no', delay: 3 })];
      const run: { execute$(input: string): Observable<ExecutionResult<unknown>> } =
        kind === 'voting' ? Patterns.voting({ agents }).overChannel(closeOn('c')) : Patterns.parallel({ agents }).overChannel(closeOn('c'));
      const end$ = run.execute$('Ship?').pipe(map((result) => [result.status, result.error instanceof MessageDroppedError && result.error.agentId, result.results.length]));
      expectObservable(end$).toBe('3ms (r|)', { r: ['failed', 'c', 2] });
    });
  });
});

// Anyone holding the run's channel may post on it; only the run's own agents' replies to its request are results.
describe('overChannel: a watcher that posts results of its own while the run collects', () => {
  const agents = () => [scriptedAgent('a', { reply: 'yes', delay: 1 }), scriptedAgent('b', { reply: 'no', delay: 2 }), scriptedAgent('c', { reply: 'no', delay: 3 })];
  // On the first reply, a result from someone outside the run, and one under the name of an agent still working.
  const poster = {
    onChannel: (channel: StreamingChannel<AgentResult>) => {
      channel.subscribe((result) => {
        if (result.agentId !== 'a') return;
        channel.emit({ success: true, agentId: 'watcher', input: 'Ship?', output: 'yes', startedAt: result.startedAt, durationMs: 0 });
        channel.emit({ success: true, agentId: 'c', input: 'Ship?', output: 'yes', startedAt: result.startedAt, durationMs: 0 });
      });
    },
  };

  it.each(['voting', 'parallel'] as const)('%s gives the same result as without the watcher', (kind) => {
    const outcomes: Record<'alone' | 'watched', ExecutionResult<unknown>[]> = { alone: [], watched: [] };
    testScheduler().run(() => {
      const run = (options: ChannelBackendOptions<AgentResult>): Observable<ExecutionResult<unknown>> =>
        kind === 'voting' ? Patterns.voting({ agents: agents() }).overChannel(options).execute$('Ship?') : Patterns.parallel({ agents: agents() }).overChannel(options).execute$('Ship?');
      run({}).subscribe((result) => outcomes.alone.push(result));
      run(poster).subscribe((result) => outcomes.watched.push(result));
    });
    const [alone] = outcomes.alone;
    expect([alone?.status, alone?.output]).toEqual(kind === 'voting' ? ['completed', 'no'] : ['completed', 'a: yes\nb: no\nc: no']);
    expect(outcomes.watched).toEqual(outcomes.alone);
  });
});
