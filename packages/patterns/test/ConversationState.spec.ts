import fc from 'fast-check';
import { ConfigError } from '@rxagents/core';
import { conversationPrompt, ConversationState } from '@rxagents/patterns';
import { countLargeArrayCopies } from './helpers';

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
        expect(state.counts).toEqual(ids.map((speaker, i) => ({ speaker, count: counts[i] })));
        expect(state.messages.every((m) => m.round >= 1 && m.round <= ConversationState.contributions(state, m.speaker))).toBe(true);
      }),
    );
  });

  it('counts any speaker name, `__proto__` and `constructor` included, without giving it an object key', () => {
    let state = ConversationState.initial('t', ['a', 'constructor']);
    for (const speaker of ['__proto__', 'constructor', '__proto__', 'a', 'toString']) state = ConversationState.fold(state, { speaker, content: 'x', at: 0 });
    expect(state.counts).toEqual([
      { speaker: 'a', count: 1 },
      { speaker: 'constructor', count: 1 },
      { speaker: '__proto__', count: 2 },
      { speaker: 'toString', count: 1 },
    ]);
    expect([state.round, ConversationState.contributions(state, 'hasOwnProperty'), state.messages.map((m) => m.round)]).toEqual([1, 0, [1, 1, 2, 1, 1]]);
    expect(JSON.parse(JSON.stringify(state)).counts).toEqual(state.counts);
  });

  it('never mutates the previous snapshot', () => {
    const before = ConversationState.initial('t', ['a']);
    const after = ConversationState.fold(before, { speaker: 'a', content: 'hi', at: 1 });
    expect(before.messages).toHaveLength(0);
    expect([after.round, after.roundComplete, after.lastSpeaker]).toEqual([1, true, 'a']);
  });

  it('folds in O(1): 5,000 messages copy no transcript, and each snapshot keeps its own', () => {
    const states = [ConversationState.initial('t', ['a', 'b'])];
    const copies = countLargeArrayCopies(1_000, () => {
      for (let i = 0; i < 5_000; i += 1) states.push(ConversationState.fold(states.at(-1) as ConversationState, { speaker: i % 2 === 0 ? 'a' : 'b', content: `m${i}`, at: i }));
    });
    expect(copies).toBe(0);
    const last = states.at(-1) as ConversationState;
    expect([states[3]?.messages.length, last.messages.length, last.round]).toEqual([3, 5_000, 2_500]);
    expect(ConversationState.transcript(states[2] as ConversationState)).toBe('a: m0\nb: m1');
    expect(ConversationState.transcript(last)).toBe(last.messages.map((m) => `${m.speaker}: ${m.content}`).join('\n'));
    expect(Object.isFrozen(last.messages)).toBe(true);
  });

  it('folds a state built by hand, keeping its extra fields', () => {
    const base = ConversationState.fold(ConversationState.initial('t', ['a']), { speaker: 'a', content: 'one', at: 0 });
    const trimmed = { ...base, messages: [], note: 'kept' } as ConversationState & { note: string };
    const next = ConversationState.fold(trimmed, { speaker: 'a', content: 'two', at: 1 }) as ConversationState & { note: string };
    expect([next.messages.map((m) => [m.index, m.content]), next.note, ConversationState.transcript(next)]).toEqual([[[0, 'two']], 'kept', 'a: two']);
  });

  it.each([null, undefined, 42, {}])('initial, fold, contributions, transcript and conversationPrompt refuse %p with a ConfigError naming the argument', (bad) => {
    const state = ConversationState.initial('topic', ['a', 'b']);
    expect(() => ConversationState.initial('topic', bad as never)).toThrow(ConfigError);
    expect(() => ConversationState.initial('topic', bad as never)).toThrow(/^ConversationState.initial: participants must be an array of participant ids/);
    expect(() => ConversationState.initial(bad as never, ['a'])).toThrow(/^ConversationState.initial: topic must be a string/);
    expect(() => ConversationState.fold(bad as never, { speaker: 'a', content: 'hi', at: 0 })).toThrow(/^ConversationState.fold: state must be a ConversationState/);
    expect(() => ConversationState.fold(state, bad as never)).toThrow(/^ConversationState.fold: posted must be a posted message/);
    expect(() => ConversationState.contributions(bad as never, 'a')).toThrow(/^ConversationState.contributions: state must be a ConversationState/);
    expect(() => ConversationState.contributions(state, bad as never)).toThrow(/^ConversationState.contributions: speaker must be a string/);
    expect(() => ConversationState.transcript(bad as never)).toThrow(/^ConversationState.transcript: state must be a ConversationState/);
    expect(() => conversationPrompt(bad as never, 'a')).toThrow(/^conversationPrompt: state must be a ConversationState/);
    expect(() => conversationPrompt(state, bad as never)).toThrow(/^conversationPrompt: speaker must be a string/);
  });
});
