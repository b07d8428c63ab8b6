import { parseReplies, parseReply, streamEntries } from '../src/internal/protocol';

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
    expect(streamEntries(['key', [['1-0', [1, 2]]]]).ok).toBe(false);
    expect(streamEntries('OK').ok).toBe(false);
  });

  it('reads a batch of replies from one entry, in order, and refuses a batch with a bad item, naming it', () => {
    const batch = '[{"kind":"started","attempt":1,"seq":0,"worker":"w"},{"kind":"chunk","attempt":1,"seq":1,"text":"Hi"},{"kind":"end","attempt":1,"seq":2}]';
    expect(parseReplies(['replies', batch])).toEqual({
      ok: true,
      value: [
        { kind: 'started', attempt: 1, seq: 0, worker: 'w' },
        { kind: 'chunk', attempt: 1, seq: 1, text: 'Hi' },
        { kind: 'end', attempt: 1, seq: 2 },
      ],
    });
    expect(parseReplies(['reply', '{"kind":"end","attempt":1,"seq":0}'])).toEqual({ ok: true, value: [{ kind: 'end', attempt: 1, seq: 0 }] });
    const bad = parseReplies(['replies', '[{"kind":"chunk","attempt":1,"seq":0,"text":"x"},{"kind":"end","attempt":1}]']);
    expect(bad.ok ? '' : bad.reason).toMatch(/field "replies" item 1 fails the schema.*seq/s);
    for (const raw of ['[]', '{"kind":"end"}', '[{']) expect(parseReplies(['replies', raw]).ok).toBe(false);
    expect(parseReplies(null)).toEqual({ ok: false, reason: 'missing field "reply"' });
  });
});
