import fc from 'fast-check';
import { ConfigError } from '@rxagents/core';
import { HandoffContext } from '@rxagents/handoff';

describe('HandoffContext', () => {
  it('is a record with taskId, payload, metadata and parentHandoffId', () => {
    const context = new HandoffContext({ taskId: 'invoice-42', payload: { document: 'Invoice text ...' }, metadata: { language: 'de' }, parentHandoffId: 'h-1' });
    expect(context.taskId).toBe('invoice-42');
    expect(context.payload).toEqual({ document: 'Invoice text ...' });
    expect(context.metadata).toEqual({ language: 'de' });
    expect(context.parentHandoffId).toBe('h-1');
  });

  it('requires a non-empty taskId', () => {
    expect(() => new HandoffContext({ taskId: '' })).toThrow(ConfigError);
    expect(() => new HandoffContext({ taskId: '' })).toThrow('HandoffContext: taskId must be a non-blank string, got ""');
    expect(() => HandoffContext.of(undefined as unknown as string)).toThrow(ConfigError);
  });

  it('maps null and missing maps to empty, frozen maps', () => {
    const fromNull = new HandoffContext({ taskId: 't', payload: null, metadata: null, parentHandoffId: null });
    const missing = new HandoffContext({ taskId: 't' });
    for (const context of [fromNull, missing]) {
      expect(context.payload).toEqual({});
      expect(context.metadata).toEqual({});
      expect(Object.isFrozen(context.payload)).toBe(true);
      expect(Object.isFrozen(context.metadata)).toBe(true);
      expect(context.parentHandoffId).toBeUndefined();
    }
  });

  it('is immutable, and does not alias the maps it was built from', () => {
    const payload: Record<string, unknown> = { a: 1 };
    const context = new HandoffContext({ taskId: 't', payload });
    payload.a = 2;
    expect(context.payload.a).toBe(1);
    expect(Object.isFrozen(context)).toBe(true);
    expect(() => {
      (context as { taskId: string }).taskId = 'other';
    }).toThrow(TypeError);
  });

  it('of(taskId) and of(taskId, payload) build the common cases', () => {
    expect(HandoffContext.of('t-1').payload).toEqual({});
    expect(HandoffContext.of('ticket-7', { invoiceId: '42' }).payload).toEqual({ invoiceId: '42' });
  });

  it('withPayload returns a copy with one more entry, leaving the original untouched', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.integer()), fc.string(), fc.integer(), (payload, key, value) => {
        const original = HandoffContext.of('t', payload);
        const copy = original.withPayload(key, value);
        expect(copy).not.toBe(original);
        expect(copy.payload[key]).toBe(value);
        expect(original.payload).toEqual(payload);
        expect(copy.taskId).toBe('t');
      }),
    );
  });

  it('keeps an own "__proto__" payload key as data', () => {
    const payload = JSON.parse('{"__proto__": 1, "a": 2}') as Record<string, unknown>;
    const context = HandoffContext.of('t', payload);
    expect(Object.keys(context.payload)).toEqual(['__proto__', 'a']);
    expect(Object.getPrototypeOf(context.payload)).toBe(Object.prototype);
  });

  it('carries an optional handoffChain, with depth its length', () => {
    expect(HandoffContext.of('t').handoffChain).toBeUndefined();
    const context = new HandoffContext({ taskId: 't', handoffChain: ['intake', 'triage'] });
    expect(context.handoffChain).toEqual(['intake', 'triage']);
    expect(context.depth).toBe(2);
    expect(Object.isFrozen(context.handoffChain)).toBe(true);
  });

  it('accepts the legacy aliases chain, depth and max_depth', () => {
    const legacy = new HandoffContext({ taskId: 't', chain: ['a', 'b'], max_depth: 3 });
    expect(legacy.handoffChain).toEqual(['a', 'b']);
    expect(legacy.chain).toEqual(['a', 'b']);
    expect(legacy.maxDepth).toBe(3);
    expect(new HandoffContext({ taskId: 't', depth: 4 }).depth).toBe(4);
  });

  it('is strict: an unknown key is a ConfigError naming it, with the likely intended key', () => {
    expect(() => new HandoffContext({ taskId: 't', playload: { a: 1 } } as never)).toThrow(ConfigError);
    expect(() => new HandoffContext({ taskId: 't', playload: { a: 1 } } as never)).toThrow('HandoffContext: playload is not a known option (did you mean payload?)');
  });

  it('ids are non-blank; maxDepth is a bounded non-negative integer', () => {
    expect(() => new HandoffContext({ taskId: '   ' })).toThrow('HandoffContext: taskId must be a non-blank string');
    expect(() => new HandoffContext({ taskId: 't', parentHandoffId: ' ' })).toThrow(/parentHandoffId must be a non-blank string/);
    expect(() => new HandoffContext({ taskId: 't', handoffChain: ['a', ''] })).toThrow(/handoffChain.1 must be a non-blank string/);
    expect(() => new HandoffContext({ taskId: 't', maxDepth: 2 ** 32 })).toThrow(/maxDepth must be a non-negative integer of at most 2147483647/);
    expect(() => new HandoffContext({ taskId: 't', depth: 2 ** 32 })).toThrow(/depth must be a non-negative integer of at most 2147483647/);
  });

  it('rejects badly typed fields with a ConfigError naming the field', () => {
    expect(() => new HandoffContext({ taskId: 't', payload: 'x' as unknown as Record<string, unknown> })).toThrow(/payload/);
    expect(() => new HandoffContext({ taskId: 't', depth: -1 })).toThrow(/depth must be a non-negative integer/);
  });

  it.each([undefined, 42, {}])('withPayload, withPayloadReplaced and withPreviousOutput refuse %p where a key, a payload or an output belongs', (bad) => {
    const context = HandoffContext.of('t-1');
    expect(() => context.withPayload(bad as never, 1)).toThrow(ConfigError);
    expect(() => context.withPayload(bad as never, 1)).toThrow(/^HandoffContext.withPayload: key must be a string/);
    if (typeof bad !== 'object') expect(() => context.withPayloadReplaced(bad as never)).toThrow(/^HandoffContext.withPayloadReplaced: payload must be an object/);
    expect(() => context.withPreviousOutput(bad as never)).toThrow(/^HandoffContext.withPreviousOutput: previousOutput must be a string or null/);
  });
});

describe('HandoffContext payload types', () => {
  it('infers the payload shape from of(), the constructor and withPayload', () => {
    const invoice = HandoffContext.of('t-1', { invoiceId: '42', amount: 120 });
    const id: string = invoice.payload.invoiceId;
    const amount: number = invoice.payload.amount;
    // @ts-expect-error: the payload has no such field
    void invoice.payload.customer;
    const flagged = invoice.withPayload('priority', 'high' as const);
    const priority: 'high' = flagged.payload.priority;
    const next = flagged.withPreviousOutput('done');
    const previous: string | null = next.payload.previousOutput;
    const built = new HandoffContext({ taskId: 't-2', payload: { ticket: 7 } });
    const ticket: number = built.payload.ticket;
    // Code that takes any context still accepts a typed one.
    const anyContext: HandoffContext = flagged;
    expect([id, amount, priority, previous, ticket, anyContext.taskId]).toEqual(['42', 120, 'high', 'done', 7, 't-1']);
  });
});
