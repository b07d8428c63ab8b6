import fc from 'fast-check';
import { ConfigError, type Message } from '@rxagents/core';
import { estimateTokens, selectHandoffMessages } from '@rxagents/handoff';

const system: Message = { role: 'system', content: 'You are a helpful assistant' };
const turns = (count: number): Message[] => Array.from({ length: count }, (_, i) => ({ role: i % 2 === 0 ? 'user' : 'assistant', content: `m${i}` }));
const arbitraryMessages = fc.array(
  fc.record({ role: fc.constantFrom('system', 'user', 'assistant', 'tool') as fc.Arbitrary<Message['role']>, content: fc.string({ maxLength: 40 }) }),
  { maxLength: 30 },
);

describe('selectHandoffMessages', () => {
  it('refuses messages that are not an array of messages with a ConfigError naming the item', () => {
    expect(() => selectHandoffMessages(null as never)).toThrow('selectHandoffMessages: messages must be an array, got null');
    expect(() => selectHandoffMessages([system, { role: 'user' }] as never)).toThrow('selectHandoffMessages: messages.1.content must be a string, got undefined');
    expect(() => selectHandoffMessages([null] as never)).toThrow(ConfigError);
  });

  it('its settings are strict and bounded', () => {
    expect(() => selectHandoffMessages([], { maxContextMessage: 1 } as never)).toThrow('selectHandoffMessages settings: maxContextMessage is not a known option (did you mean maxContextMessages?)');
    expect(() => selectHandoffMessages([], { maxContextTokens: 2 ** 32 })).toThrow(/maxContextTokens must be an integer .*at most 2147483647/);
  });

  it('none = nothing', () => {
    expect(selectHandoffMessages([system, ...turns(5)], { contextPolicy: 'none' })).toEqual([]);
  });

  it('last_n = the last maxContextMessages (system kept by default)', () => {
    const history = [system, ...turns(12)];
    expect(selectHandoffMessages(history, { contextPolicy: 'last_n', maxContextMessages: 2 })).toEqual([system, ...turns(12).slice(-2)]);
    expect(selectHandoffMessages(history, { contextPolicy: 'last_n', maxContextMessages: 2, preserveSystem: false })).toEqual(turns(12).slice(-2));
  });

  it('last_n with maxContextMessages <= 0 keeps everything', () => {
    expect(selectHandoffMessages(turns(15), { contextPolicy: 'last_n', maxContextMessages: 0 })).toEqual(turns(15));
  });

  it('summary (the default) = the last 3 messages, hard-coded; maxContextMessages is ignored by it', () => {
    expect(selectHandoffMessages(turns(8))).toEqual(turns(8).slice(-3));
    expect(selectHandoffMessages(turns(8), { contextPolicy: 'summary', maxContextMessages: 6 })).toEqual(turns(8).slice(-3));
  });

  it('full = everything', () => {
    expect(selectHandoffMessages([system, ...turns(20)], { contextPolicy: 'full', maxContextTokens: 0 })).toEqual([system, ...turns(20)]);
  });

  it('the token budget is applied last and drops the oldest first', () => {
    const history: Message[] = [
      { role: 'user', content: 'a'.repeat(40) },
      { role: 'assistant', content: 'b'.repeat(40) },
      { role: 'user', content: 'c'.repeat(40) },
    ];
    expect(selectHandoffMessages(history, { contextPolicy: 'full', maxContextTokens: 20 })).toEqual(history.slice(1));
  });

  it('never drops system messages when preserveSystem', () => {
    const history: Message[] = [{ role: 'user', content: 'x'.repeat(40) }, system, { role: 'user', content: 'y'.repeat(40) }];
    expect(selectHandoffMessages(history, { contextPolicy: 'full', maxContextTokens: 12 })).toEqual([system]);
    expect(selectHandoffMessages(history, { contextPolicy: 'full', maxContextTokens: 12, preserveSystem: false })).toEqual([history[2]]);
  });

  it('a system prompt larger than the budget is kept in full', () => {
    const huge: Message = { role: 'system', content: 'rule '.repeat(10_000) };
    expect(selectHandoffMessages([huge, ...turns(3)], { contextPolicy: 'full', maxContextTokens: 100 })).toEqual([huge]);
  });

  it('maxContextTokens <= 0 disables the budget', () => {
    const big = [{ role: 'user' as const, content: 'z'.repeat(100_000) }];
    expect(selectHandoffMessages(big, { contextPolicy: 'full', maxContextTokens: 0 })).toEqual(big);
    expect(selectHandoffMessages(big, { contextPolicy: 'full' })).toEqual([]);
  });

  it('the token counter is pluggable; the default is about 4 characters a token', () => {
    expect(estimateTokens({ role: 'user', content: 'abcdefgh' })).toBe(2);
    const oneEach = selectHandoffMessages(turns(5), { contextPolicy: 'full', maxContextTokens: 2, countTokens: () => 1 });
    expect(oneEach).toEqual(turns(5).slice(-2));
  });

  it('keeps order, returns a subsequence, never exceeds the budget except with system messages, and keeps every system message', () => {
    fc.assert(
      fc.property(arbitraryMessages, fc.constantFrom('none', 'last_n', 'summary', 'full') as fc.Arbitrary<'none' | 'last_n' | 'summary' | 'full'>, fc.integer({ min: -2, max: 12 }), fc.integer({ min: -1, max: 60 }), (messages, contextPolicy, maxContextMessages, maxContextTokens) => {
        const picked = selectHandoffMessages(messages, { contextPolicy, maxContextMessages, maxContextTokens });
        let cursor = 0;
        for (const message of picked) {
          while (cursor < messages.length && messages[cursor] !== message) cursor += 1;
          expect(cursor).toBeLessThan(messages.length);
          cursor += 1;
        }
        if (contextPolicy !== 'none') {
          const systems = messages.filter((m) => m.role === 'system');
          expect(picked.filter((m) => m.role === 'system')).toEqual(systems);
          if (maxContextTokens > 0) {
            const nonSystem = picked.filter((m) => m.role !== 'system').reduce((sum, m) => sum + estimateTokens(m), 0);
            const systemTokens = systems.reduce((sum, m) => sum + estimateTokens(m), 0);
            expect(nonSystem === 0 || nonSystem + systemTokens <= maxContextTokens).toBe(true);
          }
        } else {
          expect(picked).toEqual([]);
        }
      }),
    );
  });

  it.each([null, undefined, 42, {}])('estimateTokens refuses %p with a ConfigError naming the message', (bad) => {
    expect(() => estimateTokens(bad as never)).toThrow(ConfigError);
    expect(() => estimateTokens(bad as never)).toThrow(/^estimateTokens: message must be a message with a string content/);
  });
});
