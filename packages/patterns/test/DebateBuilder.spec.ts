import { map } from 'rxjs';
import { ConfigError } from '@rxagents/core';
import { scriptedAgent } from '@rxagents/testing';
import { Patterns, type ExecutionResult, type ConversationState } from '@rxagents/patterns';
import { countLargeArrayCopies, debater, testScheduler } from './helpers';

const speakerOrStatus = (result: ExecutionResult<ConversationState>): string =>
  result.status === 'running' ? (result.state.lastSpeaker ?? '?') : result.status;

describe('Patterns.debate', () => {
  for (const mode of ['direct', 'channel'] as const) {
    describe(mode, () => {
      const debate = (options: Parameters<typeof Patterns.debate>[0]) =>
        mode === 'direct' ? Patterns.debate(options) : Patterns.debate(options).overChannel();

      it('gives a three-agent debate its exact turn order, round after round, and stops at maxRounds', () => {
        testScheduler().run(({ expectObservable }) => {
          const agents = [debater('alice'), debater('bob'), debater('carol')];
          const turns$ = debate({ agents, maxRounds: 2 }).snapshots$('Tabs or spaces?').pipe(map(speakerOrStatus));
          expectObservable(turns$).toBe('10ms a 9ms b 9ms c 9ms a 9ms b 9ms (cz|)', { a: 'alice', b: 'bob', c: 'carol', z: 'completed' });
        });
      });

      it('defaults maxRounds to 5 and reports the rounds and the reason', () => {
        testScheduler().run(({ expectObservable }) => {
          const result$ = debate({ agents: [debater('a', 1), debater('b', 1)] }).execute$('t').pipe(map((r) => `${r.iterations}:${r.state.messages.length}:${r.reason}`));
          expectObservable(result$).toBe('10ms (r|)', { r: '5:10:reached 5 iterations' });
        });
      });

      it('ends when the judge sees convergence, after the round it judged', () => {
        const judge = scriptedAgent('judge', (input) => ({ reply: /bob r2/.test(input) ? 'CONVERGED: they agree' : 'CONTINUE', delay: 5 }));
        testScheduler().run(({ expectObservable }) => {
          const result$ = debate({ agents: [debater('alice'), debater('bob')], maxRounds: 5, judge })
            .execute$('t')
            .pipe(map((r) => `${r.status}/${r.iterations}/${r.reason}`));
          // Round 1 ends at 20, verdict at 25; round 2 ends at 45, verdict CONVERGED at 50.
          expectObservable(result$).toBe('50ms (r|)', { r: 'completed/2/judge: CONVERGED: they agree' });
        });
        expect(judge.inputs).toHaveLength(2);
      });

      it('copies neither transcript nor results per turn: 1,200 turns, each snapshot reads as it was', () => {
        const snapshots: ExecutionResult<ConversationState>[] = [];
        const copies = countLargeArrayCopies(1_000, () => {
          debate({ agents: [scriptedAgent('pro', 'yes'), scriptedAgent('con', 'no')], maxRounds: 600 })
            .snapshots$('t')
            .subscribe((snapshot) => snapshots.push(snapshot));
        });
        expect(copies).toBe(0);
        const final = snapshots.at(-1) as ExecutionResult<ConversationState>;
        expect([final.status, final.state.messages.length, final.results.length, final.output.length]).toEqual(['completed', 1_200, 1_200, 600 * 'pro: yes\ncon: no\n'.length - 1]);
        expect([snapshots[2]?.state.messages.length, snapshots[2]?.results.length, snapshots[2]?.output]).toEqual([3, 3, 'pro: yes\ncon: no\npro: yes']);
      });

      it('fails when a debater fails, with the error in the result', () => {
        testScheduler().run(({ expectObservable }) => {
          const broken = scriptedAgent('broken', { error: new Error('model down'), delay: 3 });
          const result$ = debate({ agents: [debater('alice'), broken] })
            .execute$('t')
            .pipe(map((r) => `${r.status}/${r.reason}/${(r.error as Error).message}`));
          expectObservable(result$).toBe('13ms (r|)', { r: 'failed/agent broken failed/Agent "broken" failed: model down' });
        });
      });
    });
  }

  it('gives the same transcript directly and over a channel', () => {
    testScheduler().run(({ expectObservable }) => {
      const judge = scriptedAgent('judge', (input) => (/carol r3/.test(input) ? 'CONVERGED' : 'CONTINUE'));
      const make = () => Patterns.debate({ agents: [debater('alice', 7), debater('bob', 3), debater('carol', 11)], maxRounds: 4, judge });
      const direct$ = make().execute$('Should we ship on Friday?').pipe(map((r) => r.state.messages));
      const channel$ = make().overChannel().execute$('Should we ship on Friday?').pipe(map((r) => r.state.messages));
      const transcript = [7, 10, 21, 28, 31, 42, 49, 52, 63].map((at, index) => ({
        index,
        at,
        speaker: ['alice', 'bob', 'carol'][index % 3],
        content: `${['alice', 'bob', 'carol'][index % 3]} r${Math.floor(index / 3) + 1}`,
        round: Math.floor(index / 3) + 1,
      }));
      expectObservable(direct$).toBe('63ms (t|)', { t: transcript });
      expectObservable(channel$).toBe('63ms (t|)', { t: transcript });
    });
  });

  it('reports its mode in every result', async () => {
    const agents = [scriptedAgent('a', 'yes'), scriptedAgent('b', 'no')];
    const direct = await Patterns.debate({ agents, maxRounds: 1 }).execute('t');
    const channel = await Patterns.debate({ agents, maxRounds: 1 }).overChannel().execute('t');
    expect([direct.mode, channel.mode]).toEqual(['direct', 'channel']);
    expect(channel.output).toBe('a: yes\nb: no');
  });

  it('rejects bad settings with a ConfigError naming the field', () => {
    expect(() => Patterns.debate({ agents: [scriptedAgent('a', 'x')] })).toThrow(ConfigError);
    expect(() => Patterns.debate({ agents: [scriptedAgent('a', 'x'), scriptedAgent('b', 'y')], maxRounds: 0 })).toThrow(
      'Debate options: maxRounds must be a positive integer, got 0',
    );
  });

  it('refuses judgeOptions without a judge, which would otherwise be ignored (the debate running every round unjudged)', () => {
    const agents = [scriptedAgent('a', 'x'), scriptedAgent('b', 'y')];
    expect(() => Patterns.debate({ agents, maxRounds: 2, judgeOptions: { predicate: (verdict) => verdict.startsWith('yes') } })).toThrow(
      'Debate options: judgeOptions needs a judge to ask (set judge, or leave judgeOptions out), got {}',
    );
  });
});
