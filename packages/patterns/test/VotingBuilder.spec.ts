import { map } from 'rxjs';
import { AgentTimeoutError, ConfigError } from '@rxagents/core';
import { failingAgent, hangingAgent, scriptedAgent } from '@rxagents/testing';
import { ExecutionTimeoutError, Patterns, VotingAggregation } from '@rxagents/patterns';
import { testScheduler } from './helpers';

describe('Patterns.voting', () => {
  for (const mode of ['direct', 'channel'] as const) {
    const voting = (options: Parameters<typeof Patterns.voting>[0]) => (mode === 'direct' ? Patterns.voting(options) : Patterns.voting(options).overChannel());

    describe(mode, () => {
      it('elects the majority choice; every vote arrives as a snapshot', () => {
        testScheduler().run(({ expectObservable }) => {
          const agents = [scriptedAgent('a', { reply: 'Yes.', delay: 5 }), scriptedAgent('b', { reply: 'no', delay: 10 }), scriptedAgent('c', { reply: 'YES', delay: 15 })];
          const votes$ = voting({ agents }).snapshots$('Ship?').pipe(map((r) => (r.status === 'running' ? String(r.state.votes.length) : `${r.status}:${r.output}`)));
          expectObservable(votes$).toBe('5ms 1 4ms 2 4ms (3z|)', { 1: '1', 2: '2', 3: '3', z: 'completed:yes' });
        });
      });

      it('turns a tie into a deadlocked outcome', () => {
        testScheduler().run(({ expectObservable }) => {
          const agents = [scriptedAgent('a', 'approve'), scriptedAgent('b', 'reject'), scriptedAgent('c', 'reject'), scriptedAgent('d', 'approve')];
          const result$ = voting({ agents }).execute$('Merge?').pipe(map((r) => `${r.status}|${r.output}|${r.reason}`));
          expectObservable(result$).toBe('(r|)', { r: 'deadlocked||tie between approve, reject (2 votes each)' });
        });
      });

      it('records a voter past its agentTimeout as a timed-out result, not a hang', () => {
        const slow = hangingAgent('slow');
        testScheduler().run(({ expectObservable }) => {
          const agents = [scriptedAgent('a', { reply: 'yes', delay: 5 }), slow, scriptedAgent('c', { reply: 'yes', delay: 8 })];
          const result$ = voting({ agents, agentTimeout: 50 }).execute$('Ship?').pipe(
            map((r) => {
              const failure = r.results.find((result) => !result.success);
              return `${r.status}:${r.output}:${failure?.agentId}:${failure !== undefined && !failure.success && failure.timedOut && failure.error instanceof AgentTimeoutError}`;
            }),
          );
          expectObservable(result$).toBe('50ms (r|)', { r: 'completed:yes:slow:true' });
        });
        expect(slow.aborted).toBe(true);
      });

      it('records voters still thinking at the overall timeout with ExecutionTimeoutError', () => {
        testScheduler().run(({ expectObservable }) => {
          const agents = [scriptedAgent('a', { reply: 'yes', delay: 5 }), hangingAgent('b'), hangingAgent('c')];
          const result$ = voting({ agents, timeout: 30 }).execute$('Ship?').pipe(
            map((r) => r.results.map((result) => (result.success ? result.output : `${result.agentId}@${result.startedAt + result.durationMs}:${result.error instanceof ExecutionTimeoutError}`)).join(',')),
          );
          expectObservable(result$).toBe('30ms (r|)', { r: 'yes,b@30:true,c@30:true' });
        });
      });

      it('counts a reply with no vote in it (empty, or punctuation only) as an abstention, not as a vote for ""', async () => {
        const agents = [scriptedAgent('a', ''), scriptedAgent('b', '...'), scriptedAgent('c', 'Yes.')];
        const result = await voting({ agents }).execute('Ship?');
        expect([result.status, result.output, result.reason, result.state.votes.map((vote) => vote.choice)]).toEqual(['completed', 'yes', 'yes won with 1 of 3 votes', [undefined, undefined, 'yes']]);
        const silent = await voting({ agents: [scriptedAgent('a', ''), scriptedAgent('b', '')] }).execute('Ship?');
        expect([silent.status, silent.reason]).toEqual(['deadlocked', 'no valid vote']);
      });

      it('lets a failing voter abstain', async () => {
        const result = await voting({ agents: [scriptedAgent('a', 'no'), failingAgent('b', new Error('down'), { mode: 'reject' })] }).execute('?');
        expect([result.status, result.output, result.state.votes]).toEqual(['completed', 'no', expect.arrayContaining([{ agentId: 'b', choice: undefined }])]);
      });
    });
  }

  it('bounds how many voters work at once with concurrency', () => {
    testScheduler().run(({ expectObservable }) => {
      const agents = ['a', 'b', 'c', 'd'].map((id) => scriptedAgent(id, { reply: 'x', delay: 10 }));
      const done$ = Patterns.voting({ agents, concurrency: 2 }).overChannel().execute$('?').pipe(map((r) => r.status));
      expectObservable(done$).toBe('20ms (r|)', { r: 'completed' });
    });
  });

  it('supports unanimity', () => {
    const decide = VotingAggregation.unanimous();
    expect(decide([{ agentId: 'a', choice: 'go' }, { agentId: 'b', choice: 'go' }]).winner).toBe('go');
    expect(decide([{ agentId: 'a', choice: 'go' }, { agentId: 'b', choice: undefined }]).winner).toBeUndefined();
  });

  it.each([null, undefined, 42, {}])('majority and unanimous refuse %p as the votes, or as one vote, with a ConfigError naming it', (bad) => {
    expect(() => VotingAggregation.majority()(bad as never)).toThrow(ConfigError);
    expect(() => VotingAggregation.majority()(bad as never)).toThrow(/^VotingAggregation.majority: votes must be an array of votes/);
    expect(() => VotingAggregation.unanimous()(bad as never)).toThrow(/^VotingAggregation.unanimous: votes must be an array of votes/);
    if (typeof bad !== 'object' || bad === null) expect(() => VotingAggregation.majority()([bad] as never)).toThrow(/^VotingAggregation.majority: votes.0 must be a vote/);
  });
});
