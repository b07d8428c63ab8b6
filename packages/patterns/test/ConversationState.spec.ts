import fc from 'fast-check';
import { ConversationState } from '@rxagents/patterns';

describe('ConversationState', () => {
  it('folds messages: numbered, with each speaker\'s round, and round = the fewest contributions', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 2 }), { maxLength: 40 }), (speakers) => {
        const ids = ['a', 'b', 'c'];
        let state = ConversationState.initial('t', ids);
        for (const [at, speaker] of speakers.entries()) state = ConversationState.fold(state, { speaker: ids[speaker] as string, content: `m${at}`, at });
        const counts = ids.map((id) => speakers.filter((s) => ids[s] === id).length);
        expect(state.messages.map((m) => m.index)).toEqual(speakers.map((_, index) => index));
        expect(state.round).toBe(Math.min(...counts));
        expect(Object.values(state.counts).reduce((a, b) => a + b, 0)).toBe(speakers.length);
        expect(state.messages.every((m) => m.round >= 1 && m.round <= (state.counts[m.speaker] ?? 0))).toBe(true);
      }),
    );
  });

  it('never mutates the previous snapshot', () => {
    const before = ConversationState.initial('t', ['a']);
    const after = ConversationState.fold(before, { speaker: 'a', content: 'hi', at: 1 });
    expect(before.messages).toHaveLength(0);
    expect([after.round, after.roundComplete, after.lastSpeaker]).toEqual([1, true, 'a']);
  });
});
