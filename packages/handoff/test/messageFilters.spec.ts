import { ConfigError, type Message } from '@rxagents/core';
import { handoff, messageFilters } from '@rxagents/handoff';
import { recordingAgent } from '@rxagents/testing';

const history: Message[] = [
  { role: 'system', content: 'Be brief' },
  { role: 'user', content: 'What plan am I on?' },
  { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'lookup', arguments: '{}' }] },
  { role: 'tool', content: '{"plan":"pro"}', toolCallId: 'c1' },
  { role: 'assistant', content: 'Checking', toolCalls: [{ id: 'c2', name: 'bill', arguments: '{}' }] },
  { role: 'assistant', content: 'You are on Pro.' },
];

describe('messageFilters', () => {
  it('removeToolCalls drops tool messages and tool calls, keeping text', () => {
    expect(messageFilters.removeToolCalls(history)).toEqual([history[0], history[1], { role: 'assistant', content: 'Checking' }, history[5]]);
  });

  it('keepLastN keeps the last n messages', () => {
    expect(messageFilters.keepLastN(2)(history)).toEqual(history.slice(-2));
    expect(messageFilters.keepLastN(0)(history)).toEqual([]);
  });

  it('keepLastN refuses an n that is not an integer instead of keeping the whole history', () => {
    expect(() => messageFilters.keepLastN(Number.NaN)).toThrow('messageFilters.keepLastN: n must be an integer, got NaN');
    expect(() => messageFilters.keepLastN(1.5)).toThrow(ConfigError);
    expect(() => messageFilters.keepLastN('2' as never)).toThrow(ConfigError);
  });

  it('removeSystemMessages drops system messages', () => {
    expect(messageFilters.removeSystemMessages(history).some((m) => m.role === 'system')).toBe(false);
  });

  it('a handoff applies its inputFilter before the context policy', async () => {
    const target = recordingAgent('target');
    await handoff({ agent: target, inputFilter: messageFilters.removeToolCalls, contextPolicy: 'full' }).execute({ id: 's' }, { input: 'x', messages: history });
    expect(target.calls[0]?.options.context?.some((m) => m.role === 'tool')).toBe(false);
  });

  it.each([null, undefined, 42, {}])('removeToolCalls and removeSystemMessages refuse %p with a ConfigError naming messages', (bad) => {
    expect(() => messageFilters.removeToolCalls(bad as never)).toThrow(ConfigError);
    expect(() => messageFilters.removeToolCalls(bad as never)).toThrow(/^messageFilters.removeToolCalls: messages must be an array of messages/);
    expect(() => messageFilters.removeSystemMessages(bad as never)).toThrow(/^messageFilters.removeSystemMessages: messages must be an array of messages/);
  });
});
