import { ConversationState, TurnPolicy } from '@rxagents/patterns';

describe('TurnPolicy', () => {
  const state = (...speakers: string[]) =>
    speakers.reduce((s, speaker, at) => ConversationState.fold(s, { speaker, content: at === speakers.length - 1 ? '@qa please check, @nobody too, @pm' : '-', at }), ConversationState.initial('t', ['pm', 'dev', 'qa']));

  it('roundRobin follows declaration order after the last speaker', () => {
    const policy = TurnPolicy.roundRobin();
    expect([policy.next(state()), policy.next(state('pm')), policy.next(state('pm', 'dev', 'qa'))]).toEqual([['pm'], ['dev'], ['pm']]);
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
