import { lastValueFrom, map } from 'rxjs';
import { AgentError, ConfigError, invoke$ } from '@rxagents/core';
import { failingAgent, scriptedAgent } from '@rxagents/testing';
import { ComposedAgent, Patterns, PatternFailedError } from '@rxagents/patterns';
import { debater, testScheduler } from './helpers';

describe('ComposedAgent', () => {
  it('replies with the pattern output and runs on the model\'s own backend', async () => {
    const vote = new ComposedAgent('vote', Patterns.voting({ agents: [scriptedAgent('a', 'yes'), scriptedAgent('b', 'yes')] }).overChannel().build());
    expect(await lastValueFrom(invoke$(vote, 'ship?'))).toBe('yes');
    const result = await lastValueFrom(vote.execute$('ship?'));
    expect(result.mode).toBe('channel');
  });

  it('marks outcomes nobody decided, and errors for a failed pattern', async () => {
    const tie = Patterns.voting({ agents: [scriptedAgent('a', 'yes'), scriptedAgent('b', 'no')] }).asAgent('tie');
    expect(await lastValueFrom(invoke$(tie, '?'))).toBe('[deadlocked: tie between no, yes (1 vote each)] ');
    const broken = Patterns.sequence({ agents: [failingAgent('step', new Error('boom'))] }).asAgent('pipeline');
    const error = await lastValueFrom(invoke$(broken, 'x')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AgentError);
    expect((error as AgentError).cause).toBeInstanceOf(PatternFailedError);
  });

  it('refuses an input that is not a string when snapshots$, execute$ or events$ is called, as a builder does', () => {
    const a = scriptedAgent('a', 'x');
    const panel = Patterns.debate({ agents: [a, scriptedAgent('b', 'y')], maxRounds: 1 }).asAgent('panel');
    expect(() => panel.snapshots$(42 as never)).toThrow('Pattern input: value must be a string, got 42');
    expect(() => panel.execute$(undefined as never)).toThrow('Pattern input: value must be a string, got undefined');
    expect(() => panel.events$({ topic: 't' } as never)).toThrow('Pattern input: value must be a string, got {"topic":"t"}');
    expect(a.inputs).toHaveLength(0);
  });

  it('lets the caller stop a sub-task on what it observes', () => {
    testScheduler().run(({ expectObservable }) => {
      const panel = Patterns.debate({ agents: [debater('a', 10), debater('b', 10)], maxRounds: 5 }).overChannel().asAgent('panel', {
        stopWhen: (snapshot) => snapshot.state.messages.length === 3,
      });
      expectObservable(panel.snapshots$('t').pipe(map((r) => `${r.status}:${r.state.messages.length}`))).toBe('10ms a 9ms b 9ms (c|)', {
        a: 'running:1',
        b: 'running:2',
        c: 'completed:3',
      });
    });
  });

  it.each([undefined, null, 42, {}])('%p as chat options, or a non-string input, is a ConfigError naming the argument (the Agent contract; stream and invoke always pass both)', (bad) => {
    const agent = Patterns.voting({ agents: [scriptedAgent('a', 'yes')] }).asAgent('panel');
    expect(() => agent.chat('hi', bad as never)).toThrow(ConfigError);
    expect(() => agent.chat('hi', bad as never)).toThrow(/^panel.chat: options must be ChatOptions/);
    expect(() => agent.chat(bad as never, { signal: new AbortController().signal })).toThrow(/^panel.chat: input must be a string/);
  });
});
