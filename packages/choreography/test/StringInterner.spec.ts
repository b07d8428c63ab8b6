import { ChoreographySpec, DeadlockDetector } from '@rxagents/choreography';
import fc from 'fast-check';
import { StringInterner, hashString } from '../src/graph/StringInterner';

/** Numbers ids by first appearance with a Map: what StringInterner must agree with. */
function referenceNumbering(ids: readonly string[]): number[] {
  const seen = new Map<string, number>();
  return ids.map((id) => {
    if (!seen.has(id)) seen.set(id, seen.size);
    return seen.get(id)!;
  });
}

const namesOf = (interner: StringInterner): string[] => Array.from({ length: interner.size }, (_, index) => interner.name(index));

/** `count` distinct ids whose hashes share their low `bits` bits, so they all probe the same slots. */
function collidingIds(count: number, bits: number): string[] {
  const mask = (1 << bits) - 1;
  const ids: string[] = [];
  for (let i = 0; ids.length < count; i += 1) if ((hashString(`agent-${i}`) & mask) === 0) ids.push(`agent-${i}`);
  return ids;
}

describe('StringInterner (the id table behind DeadlockDetector)', () => {
  it('numbers ids by first appearance, through growth, like a Map (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 4 }), { maxLength: 300 }), fc.integer({ min: 0, max: 64 }), (ids, expected) => {
        const interner = new StringInterner(expected);
        expect(ids.map((id) => interner.intern(id))).toEqual(referenceNumbering(ids));
        expect(namesOf(interner)).toEqual([...new Set(ids)]);
      }),
    );
  });

  it('treats ids with lone surrogates, the empty id and prototype names as plain ids', () => {
    const ids = ['', '\uD800', '\uDC00', '\uD800\uDC00', '__proto__', 'constructor', '', '\uD800'];
    const interner = new StringInterner();
    expect(ids.map((id) => interner.intern(id))).toEqual([0, 1, 2, 3, 4, 5, 0, 1]);
  });

  it('falls back to a Map when ids collide, with the same numbering', () => {
    // 80 ids whose hashes agree on their low 8 bits: the table (256 slots at most for 80 ids) puts them
    // in one run, so probing passes the limit and the interner switches to a Map.
    const ids = collidingIds(80, 8);
    const lookups = [...ids, ...ids.slice().reverse(), 'fresh', ids[0]!];
    const interner = new StringInterner();
    expect(lookups.map((id) => interner.intern(id))).toEqual(referenceNumbering(lookups));
    expect(interner.usesMap).toBe(true);
    expect(namesOf(interner)).toEqual([...ids, 'fresh']);
  });

  it('does not fall back on ordinary ids', () => {
    const interner = new StringInterner();
    for (let i = 0; i < 50_000; i += 1) interner.intern(`a${i}`);
    expect(interner.usesMap).toBe(false);
    expect(interner.intern('a49999')).toBe(49_999);
  });

  it('gives DeadlockDetector the same cycles for colliding ids', () => {
    const ids = collidingIds(60, 8);
    // A ring through every id, declared in order, and a chord back to the first from the middle.
    let builder = ChoreographySpec.builder('colliding').initialEvent('go');
    ids.forEach((id, i) => {
      builder = builder.interaction(`i${i}`, id, ids[(i + 1) % ids.length]!, 'go', null, 'Task');
    });
    const spec = builder.interaction('chord', ids[30]!, ids[0]!, 'go', null, 'Task').build();
    const result = DeadlockDetector.detect(spec);
    expect(result.hasDeadlock).toBe(true);
    // From the first id, the ring edge out of ids[30] was declared before the chord: the long cycle comes first.
    expect(result.cycles).toEqual([ids, ids.slice(0, 31)]);
  });
});
