import fc from 'fast-check';
import { isSerializedError, RunEventSchema, safeParseRunEvent, SerializedErrorSchema } from '@rxagents/core';

const base = { runId: 'r1', callId: 'c1', parentCallId: 'p1', at: 5 };
const error = { name: 'AgentError', message: 'boom', code: 'AGENT_FAILED', retryable: false };

/** One event of every type, every optional field present, each valid. */
const samples: Record<string, unknown>[] = [
  { type: 'run-start', ...base, name: 'story', input: 'hi', inputOmitted: true },
  { type: 'run-end', ...base, success: false, output: 'x', outputOmitted: true, error, durationMs: 3 },
  { type: 'call-start', ...base, agentId: 'writer', input: 'hi', inputOmitted: true },
  { type: 'text-delta', ...base, agentId: 'writer', delta: 'Once ' },
  { type: 'call-end', ...base, agentId: 'writer', durationMs: 0 },
  { type: 'call-error', ...base, agentId: 'writer', error, durationMs: 1.5 },
  { type: 'handoff', ...base, from: 'a', to: 'b', taskId: 't' },
  { type: 'choreography-event', ...base, name: 'ready', source: null },
  { type: 'step', ...base, interactionId: 'i', agentId: 'a', success: true, error, durationMs: 2 },
  { type: 'message', ...base, speaker: 's', content: 'c', contentOmitted: true },
  { type: 'round-end', ...base, round: 2 },
  { type: 'termination', ...base, decision: 'stop', reason: 'done' },
  { type: 'usage', ...base, agentId: 'a', inputTokens: 1, outputTokens: 0, totalTokens: 1 },
  { type: 'metrics', ...base, source: 'channel', metrics: { size: 3, full: false, name: 'x' } },
  { type: 'custom', ...base, name: 'note', data: { deep: [1, 'a', null, { b: true }] } },
  { type: 'interrupt', ...base, interruptId: 'i1', kind: 'approval', question: 'Allow refund?', schema: { type: 'object' }, action: 'refund', args: { amount: 3 } },
  { type: 'interrupt-end', ...base, interruptId: 'i1', answered: true, answer: { approved: true }, error, durationMs: 4 },
];

const nested = (levels: number): unknown => Array.from({ length: levels - 1 }).reduce<unknown>((inner) => [inner], []);

/** Values on both sides of every rule a field of a run event has. */
const edgeValues: unknown[] = [
  '', 'a', 0, -1, 1.5, 2 ** 53, 1e308, null, true, false, [], [1, 'a'], {}, { a: 1, b: 'x', c: true }, { a: null }, { a: { b: 1 } },
  error, { name: 'E', message: 'm' }, { name: 'E', message: 'm', code: 1 }, { name: 'E', message: 'm', stack: 's' }, { name: 'E' },
  'run-start', 'custom', 'nope', 'input', 'approval', nested(100), nested(101), { x: nested(100) },
];
const fieldNames = [...new Set(samples.flatMap((sample) => Object.keys(sample))), 'extra', '__proto__'];
const value = fc.oneof({ arbitrary: fc.constantFrom(...edgeValues), weight: 4 }, { arbitrary: fc.jsonValue({ maxDepth: 3 }), weight: 1 });

type Mutation = { kind: 'delete' | 'set'; key: string; value?: unknown };
/** A change to one field: mostly one of the event's own fields, to an edge value of some rule. */
const mutation = (own: readonly string[]): fc.Arbitrary<Mutation> => {
  const key = fc.oneof({ arbitrary: fc.constantFrom(...own), weight: 4 }, { arbitrary: fc.constantFrom(...fieldNames), weight: 1 });
  return fc.oneof(fc.record({ kind: fc.constant('delete' as const), key }), { arbitrary: fc.record({ kind: fc.constant('set' as const), key, value }), weight: 3 });
};

/** A sample with some fields removed or replaced, as a JSON value (what a frame's JSON.parse makes). */
const candidate = fc
  .constantFrom(...samples)
  .chain((sample) => fc.tuple(fc.constant(sample), fc.array(mutation(Object.keys(sample)), { maxLength: 2 })))
  .map(([sample, mutations]) => {
    const event = new Map(Object.entries(sample));
    for (const change of mutations) {
      if (change.kind === 'delete') event.delete(change.key);
      else event.set(change.key, change.value);
    }
    const pairs = [...event].map(([key, field]) => `${JSON.stringify(key)}:${JSON.stringify(field) ?? 'null'}`);
    return JSON.parse(`{${pairs.join(',')}}`) as unknown;
  });

describe('safeParseRunEvent', () => {
  it('accepts every valid event, without copying it', () => {
    for (const sample of samples) {
      const checked = safeParseRunEvent(sample);
      expect(checked).toEqual({ success: true, data: sample });
      expect(checked.success && checked.data).toBe(sample);
    }
  });

  it('accepts exactly what RunEventSchema accepts, for every field of every event set to every edge value or left out', () => {
    for (const sample of samples) {
      for (const key of fieldNames) {
        const without = Object.fromEntries(Object.entries(sample).filter(([name]) => name !== key));
        expect([key, safeParseRunEvent(without).success]).toEqual([key, RunEventSchema.safeParse(without).success]);
        for (const edge of edgeValues) {
          const event = JSON.parse(JSON.stringify({ ...without, [key]: edge })) as unknown;
          expect([sample.type, key, edge, safeParseRunEvent(event).success]).toEqual([sample.type, key, edge, RunEventSchema.safeParse(event).success]);
        }
      }
    }
  });

  it('accepts exactly what RunEventSchema accepts, on random events valid and broken', () => {
    fc.assert(
      fc.property(candidate, (event) => {
        expect(safeParseRunEvent(event).success).toBe(RunEventSchema.safeParse(event).success);
      }),
      { numRuns: 10_000 },
    );
  });

  it('accepts exactly what RunEventSchema accepts, on any JSON value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (json) => {
        expect(safeParseRunEvent(json).success).toBe(RunEventSchema.safeParse(json).success);
      }),
    );
  });

  it('names the field that breaks a rule', () => {
    const checked = safeParseRunEvent({ ...samples[3], delta: 5 });
    expect(checked.success).toBe(false);
    if (!checked.success) expect(checked.error.issues[0]).toEqual({ path: ['delta'], message: 'must be a string' });
    const extra = safeParseRunEvent({ ...samples[3], extra: 1 });
    if (!extra.success) expect(extra.error.issues[0]?.path).toEqual(['extra']);
    expect(extra.success).toBe(false);
  });
});

describe('isSerializedError', () => {
  it('accepts exactly what SerializedErrorSchema accepts', () => {
    const candidateError = fc.dictionary(fc.constantFrom('name', 'message', 'code', 'retryable', 'stack'), value, { maxKeys: 5 });
    fc.assert(
      fc.property(fc.oneof(candidateError, value), (json) => {
        expect(isSerializedError(json)).toBe(SerializedErrorSchema.safeParse(json).success);
      }),
      { numRuns: 2_000 },
    );
  });
});
