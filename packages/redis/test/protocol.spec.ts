import { CallEntrySchema, parseCall, parseField, parseReplies, parseReply, ReplyEntrySchema, streamEntries } from '../src/internal/protocol';

describe('the reply protocol checks', () => {
  it('accepts a chunk and an end', () => {
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

describe('the call entry check', () => {
  const callId = '2f1d3c4b-5a69-4788-9a0b-1c2d3e4f5a6b';
  const valid = { v: 1, callId, agentId: 'echo', input: 'hi', maxAttempts: 3, leaseMs: 10_000 };
  const candidates: unknown[] = [
    valid,
    { ...valid, leaseMs: undefined },
    { ...valid, run: { runId: 'r', callId: 'c', parentCallId: null } },
    { ...valid, run: { runId: 'r', callId: 'c', parentCallId: 'p' } },
    { ...valid, context: [{ role: 'user', content: 'earlier' }] },
    { ...valid, metadata: { task: 't-7', nested: { list: [1, 'two', null, true] } } },
    { ...valid, metadata: {} },
    { ...valid, metadata: [] },
    { ...valid, metadata: 'task' },
    { ...valid, metadata: null },
    { ...valid, extra: 1 },
    { ...valid, run: { runId: 'r', callId: 'c', parentCallId: null, extra: 1 } },
    { ...valid, run: { runId: '', callId: 'c', parentCallId: null } },
    { ...valid, context: [{ role: 'robot', content: 'x' }] },
    { ...valid, callId: 'not-a-uuid' },
    { ...valid, v: 2 },
    { ...valid, agentId: '' },
    { ...valid, input: 3 },
    { ...valid, maxAttempts: 0 },
    { ...valid, maxAttempts: 1.5 },
    { ...valid, leaseMs: 0 },
    { ...valid, maxAttempts: undefined },
    { ...valid, trace: { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01', tracestate: 'rojo=00f067aa0ba902b7' } },
    { ...valid, trace: { traceparent: 'not-a-traceparent' } },
    { ...valid, trace: { traceparent: '00-00000000000000000000000000000000-00f067aa0ba902b7-01' } },
    { ...valid, trace: { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01', baggage: 'x' } },
    [valid],
    'call',
    null,
  ];

  it('accepts exactly what the call schema accepts, with the same value, and refuses with the same reason', () => {
    let accepted = 0;
    for (const candidate of candidates) {
      const raw = JSON.stringify(candidate);
      const byCheck = parseCall(raw);
      const bySchema = parseField(CallEntrySchema, raw, 'call');
      expect(byCheck).toEqual(bySchema);
      if (byCheck.ok) accepted += 1;
    }
    expect(accepted).toBe(8);
    expect(parseCall('{not json')).toEqual(parseField(CallEntrySchema, '{not json', 'call'));
    expect(parseCall(undefined)).toEqual({ ok: false, reason: 'missing field "call"' });
  });
});

describe('the reply check', () => {
  const candidates: unknown[] = [
    { kind: 'started', attempt: 2, seq: 0, worker: 'w' },
    { kind: 'started', attempt: 2, seq: 0 },
    { kind: 'chunk', attempt: 1, seq: 1, text: '' },
    { kind: 'chunk', attempt: 1, seq: -1, text: 'x' },
    { kind: 'end', attempt: 1, seq: 2 },
    { kind: 'end', attempt: 1, seq: 2, text: 'x' },
    { kind: 'end', attempt: 0.5, seq: 2 },
    { kind: 'error', attempt: 1, seq: 3, error: { name: 'Error', message: 'boom' }, exhausted: false },
    { kind: 'error', attempt: 1, seq: 3, error: { name: 'Error', message: 'boom' } },
    { kind: 'done', attempt: 1, seq: 3 },
    [],
  ];

  it('accepts exactly what the reply schema accepts, with the same value', () => {
    for (const candidate of candidates) {
      const byCheck = parseReply(JSON.stringify(candidate));
      const bySchema = ReplyEntrySchema.safeParse(candidate);
      expect(byCheck.ok).toBe(bySchema.success);
      if (byCheck.ok && bySchema.success) expect(byCheck.value).toEqual(bySchema.data);
    }
  });
});
