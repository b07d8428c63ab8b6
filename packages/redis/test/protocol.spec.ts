import { parseReply, streamEntries } from '../src/internal/protocol';

describe('the reply protocol checks', () => {
  it('accepts a chunk on the direct path and what the schema accepts otherwise', () => {
    expect(parseReply('{"kind":"chunk","attempt":1,"seq":0,"text":"Hi"}')).toEqual({ ok: true, value: { kind: 'chunk', attempt: 1, seq: 0, text: 'Hi' } });
    expect(parseReply('{"kind":"end","attempt":2,"seq":7}')).toEqual({ ok: true, value: { kind: 'end', attempt: 2, seq: 7 } });
  });

  it('refuses a chunk the schema refuses, with the reason', () => {
    for (const bad of ['{"kind":"chunk","attempt":0,"seq":0,"text":"x"}', '{"kind":"chunk","attempt":1,"seq":0,"text":3}', '{"kind":"chunk","attempt":1,"seq":0,"text":"x","extra":1}', '{"kind":"chunk",']) {
      const parsed = parseReply(bad);
      expect(parsed.ok).toBe(false);
      expect(parsed.ok ? '' : parsed.reason).toMatch(/field "reply"/);
    }
    expect(parseReply(undefined)).toEqual({ ok: false, reason: 'missing field "reply"' });
  });

  it('reads the entries of an XREAD reply in RESP2 and RESP3 shapes, and refuses others', () => {
    const entries = [['1-0', ['reply', '{}']], ['2-0', null]];
    expect(streamEntries(null)).toEqual({ ok: true, entries: [] });
    expect(streamEntries([['key', entries]])).toEqual({ ok: true, entries });
    expect(streamEntries(['key', entries])).toEqual({ ok: true, entries });
    expect(streamEntries([['key', [['1-0', [1, 2]]]]]).ok).toBe(false);
    expect(streamEntries('OK').ok).toBe(false);
  });
});
