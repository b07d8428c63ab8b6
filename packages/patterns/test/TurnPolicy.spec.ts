import { defineAgent } from '@rxagents/core';
import { ConversationState, Patterns, TurnPolicy } from '@rxagents/patterns';

describe('TurnPolicy', () => {
  const state = (...speakers: string[]) =>
    speakers.reduce((s, speaker, at) => ConversationState.fold(s, { speaker, content: at === speakers.length - 1 ? '@qa please check, @nobody too, @pm' : '-', at }), ConversationState.initial('t', ['pm', 'dev', 'qa']));

  it('roundRobin follows declaration order after the last speaker', () => {
    const policy = TurnPolicy.roundRobin();
    expect([policy.next(state()), policy.next(state('pm')), policy.next(state('pm', 'dev', 'qa'))]).toEqual([['pm'], ['dev'], ['pm']]);
  });

  it('roundRobin goes on after the last participant who spoke when someone else (a person joining in) spoke since', () => {
    const policy = TurnPolicy.roundRobin();
    expect([policy.next(state('pm', 'human')), policy.next(state('pm', 'dev', 'human', 'bot')), policy.next(state('human'))]).toEqual([['dev'], ['qa'], ['pm']]);
  });

  it('a debate over a channel on which a person interjects after every reply still gives each debater a turn', async () => {
    const pro = defineAgent('pro', async () => 'yes');
    const con = defineAgent('con', async () => 'no');
    const debate = Patterns.debate({ agents: [pro, con], maxRounds: 2 }).overChannel({
      onChannel: (channel) => channel.subscribe((message) => void (message.speaker !== 'human' && channel.emit({ speaker: 'human', content: 'hm', at: message.at }))),
    });
    const result = await debate.execute('Ship?');
    expect([result.status, result.iterations, result.state.messages.map((message) => message.speaker).join(',')]).toEqual(['completed', 2, 'pro,human,con,human,pro,human,con,human']);
  });

  it('freeForAll gives every participant the turn', () => {
    expect(TurnPolicy.freeForAll().next(state('pm'))).toEqual(['pm', 'dev', 'qa']);
  });

  it('addressed picks the participants the last message names (not the speaker, not strangers), else falls back', () => {
    expect(TurnPolicy.addressed().next(state('pm'))).toEqual(['qa']);
    expect(TurnPolicy.addressed().next(state())).toEqual(['pm']);
    expect(TurnPolicy.addressed(TurnPolicy.custom('dev-only', () => ['dev'])).next(ConversationState.fold(ConversationState.initial('t', ['pm', 'dev']), { speaker: 'pm', content: 'hm', at: 0 }))).toEqual(['dev']);
  });
});
