import { map, type Observable } from 'rxjs';
import { scriptedAgent } from '@rxagents/testing';
import { type ExecutionResult, MessageDroppedError, Patterns, type PatternChannel } from '@rxagents/patterns';
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
