import { ConfigError } from '@rxagents/core';
import { ChoreographySpec, DeadlockDetector } from '@rxagents/choreography';
import fc from 'fast-check';
import { configErrorOf } from './configErrorOf';

const specOf = (edges: readonly (readonly [string, string])[]) => {
  let builder = ChoreographySpec.builder('graph').initialEvent('start');
  edges.forEach(([source, target], index) => {
    builder = builder.interaction(`i${index}`, source, target, 'start', null, 'Task');
  });
  return builder.build();
};

/** Counts elementary cycles by brute force: every simple path that returns to its least vertex. */
function bruteForceCycleCount(size: number, edges: readonly (readonly [number, number])[]): number {
  const adjacency = Array.from({ length: size }, () => new Set<number>());
  for (const [from, to] of edges) adjacency[from]!.add(to);
  let count = 0;
  const walk = (start: number, vertex: number, visited: Set<number>): void => {
    for (const next of adjacency[vertex]!) {
      if (next === start) count += 1;
      else if (next > start && !visited.has(next)) {
        visited.add(next);
        walk(start, next, visited);
        visited.delete(next);
      }
    }
  };
  for (let start = 0; start < size; start += 1) walk(start, start, new Set([start]));
  return count;
}

describe('DeadlockDetector.detect (source-to-target graph of a spec)', () => {
  it('finds no cycle in the article example', () => {
    const result = DeadlockDetector.detect(specOf([['system', 'researcher'], ['researcher', 'writer'], ['writer', 'reviewer']]));
    expect(result).toEqual({ cycles: [], hasDeadlock: false, truncated: false });
  });

  it('finds a two-agent cycle and a self-loop', () => {
    expect(DeadlockDetector.detect(specOf([['editor', 'writer'], ['writer', 'editor']]))).toEqual({ cycles: [['editor', 'writer']], hasDeadlock: true, truncated: false });
    expect(DeadlockDetector.detect(specOf([['looper', 'looper']])).cycles).toEqual([['looper']]);
  });

  it('lists each cycle once even when several interactions share an edge', () => {
    const result = DeadlockDetector.detect(specOf([['a', 'b'], ['a', 'b'], ['b', 'a']]));
    expect(result.cycles).toEqual([['a', 'b']]);
  });

  it('validates maxCycles', () => {
    expect(() => DeadlockDetector.detect(specOf([['a', 'b']]), { maxCycles: -1 })).toThrow(ConfigError);
    expect(() => DeadlockDetector.detect(specOf([['a', 'b']]), { maxCycles: -1 })).toThrow('maxCycles must be a non-negative integer, got -1');
  });

  it.each([null, undefined, 42, {}])('refuses %p as the spec with a ConfigError naming spec', (bad) => {
    expect(configErrorOf(() => DeadlockDetector.detect(bad as never)).message).toMatch(/^DeadlockDetector.detect: spec must be a ChoreographySpec/);
  });
});

describe('DeadlockDetector.detectFromWaitGraph', () => {
  it('accepts a record or a Map of who waits for whom', () => {
    expect(DeadlockDetector.detectFromWaitGraph({ a: ['b'], b: ['c'], c: ['a'], d: ['a'] }).cycles).toEqual([['a', 'b', 'c']]);
    expect(DeadlockDetector.detectFromWaitGraph(new Map<string, Iterable<string>>([['x', new Set(['y'])], ['y', []]]))).toEqual({ cycles: [], hasDeadlock: false, truncated: false });
  });

  it('lists every elementary cycle of a small dense graph', () => {
    const result = DeadlockDetector.detectFromWaitGraph({ a: ['b', 'c'], b: ['a', 'c'], c: ['a', 'b'] });
    expect(result.cycles.map((cycle) => cycle.join('')).sort()).toEqual(['ab', 'abc', 'ac', 'acb', 'bc']);
  });

  it('stops at maxCycles with truncated: true, while hasDeadlock stays exact', () => {
    const complete: Record<string, string[]> = {};
    const ids = Array.from({ length: 12 }, (_, i) => `n${i}`);
    for (const id of ids) complete[id] = ids.filter((other) => other !== id);
    const result = DeadlockDetector.detectFromWaitGraph(complete);
    expect(result.cycles).toHaveLength(100);
    expect(result.truncated).toBe(true);
    expect(result.hasDeadlock).toBe(true);
    expect(DeadlockDetector.detectFromWaitGraph(complete, { maxCycles: 3 }).cycles).toHaveLength(3);
    expect(DeadlockDetector.detectFromWaitGraph(complete, { maxCycles: 0 })).toEqual({ cycles: [], hasDeadlock: true, truncated: true });
    expect(DeadlockDetector.detectFromWaitGraph({ a: ['b'], b: ['a'] }, { maxCycles: 1 })).toEqual({ cycles: [['a', 'b']], hasDeadlock: true, truncated: false });
  });

  it('refuses a waiter whose list is one string rather than reading it letter by letter', () => {
    // A Map<string, string> type-checks as a WaitGraph (a string is an Iterable<string>): alice and bob wait for each other.
    const waits = new Map([['alice', 'bob'], ['bob', 'alice']]);
    const error = configErrorOf(() => DeadlockDetector.detectFromWaitGraph(waits));
    expect(error.message).toBe(
      'DeadlockDetector wait graph: alice must list the ids it waits for (an array or another iterable of ids, not one string), got "bob"; bob must list the ids it waits for (an array or another iterable of ids, not one string), got "alice"',
    );
    expect(DeadlockDetector.detectFromWaitGraph(new Map([['alice', ['bob']], ['bob', ['alice']]])).cycles).toEqual([['alice', 'bob']]);
  });

  it('refuses a wait graph that is not a Map or a record, or that names a holder by something other than a string', () => {
    expect(configErrorOf(() => DeadlockDetector.detectFromWaitGraph(null as never)).message).toBe(
      'DeadlockDetector wait graph: value must be a Map or a record from an id to the ids it waits for, got null',
    );
    expect(configErrorOf(() => DeadlockDetector.detectFromWaitGraph({ a: ['b', 7] as never, b: undefined as never })).issues.map((issue) => issue.path)).toEqual(['a.1', 'b']);
  });

  it('keeps ids like __proto__ and constructor as plain vertices', () => {
    const graph = JSON.parse('{"__proto__": ["constructor"], "constructor": ["__proto__"]}') as Record<string, string[]>;
    expect(DeadlockDetector.detectFromWaitGraph(graph).cycles).toEqual([['__proto__', 'constructor']]);
  });

  it('handles a 100,000-vertex cycle and a 100,000-vertex chain without overflowing the stack', () => {
    const ring = new Map<string, string[]>();
    for (let i = 0; i < 100_000; i += 1) ring.set(`v${i}`, [`v${(i + 1) % 100_000}`]);
    const result = DeadlockDetector.detectFromWaitGraph(ring);
    expect(result.hasDeadlock).toBe(true);
    expect(result.cycles).toHaveLength(1);
    expect(result.cycles[0]).toHaveLength(100_000);
    ring.set('v99999', []);
    expect(DeadlockDetector.detectFromWaitGraph(ring)).toEqual({ cycles: [], hasDeadlock: false, truncated: false });
  });

  it('agrees with a brute-force count of elementary cycles, and hasDeadlock iff a cycle exists (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 6 }).chain((size) =>
          fc.tuple(fc.constant(size), fc.array(fc.tuple(fc.nat(size - 1), fc.nat(size - 1)), { maxLength: 14 })),
        ),
        ([size, edges]) => {
          const graph = new Map<string, string[]>();
          for (let v = 0; v < size; v += 1) graph.set(String(v), []);
          for (const [from, to] of edges) graph.get(String(from))!.push(String(to));
          const result = DeadlockDetector.detectFromWaitGraph(graph, { maxCycles: 10_000 });
          const expected = bruteForceCycleCount(size, edges);
          expect(result.cycles).toHaveLength(expected);
          expect(result.hasDeadlock).toBe(expected > 0);
          expect(new Set(result.cycles.map((cycle) => cycle.join(','))).size).toBe(expected);
          for (const cycle of result.cycles) {
            for (let i = 0; i < cycle.length; i += 1) {
              expect(graph.get(cycle[i]!)).toContain(cycle[(i + 1) % cycle.length]);
            }
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('DeadlockDetector graph building', () => {
  it("keeps each agent's edges in declaration order when they are spread across the spec", () => {
    const result = DeadlockDetector.detect(specOf([['a', 'c'], ['b', 'a'], ['a', 'b'], ['c', 'a'], ['a', 'c'], ['a', 'b']]));
    expect(result).toEqual({ cycles: [['a', 'c'], ['a', 'b']], hasDeadlock: true, truncated: false });
  });

  it('gives a spec the same answer as its wait-for graph, with repeated edges scattered anywhere after (property)', () => {
    const vertex = fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', 'g');
    const waitGraph = fc.uniqueArray(fc.tuple(vertex, fc.array(vertex, { minLength: 1, maxLength: 5 })), { selector: ([waiter]) => waiter, minLength: 1 });
    fc.assert(
      fc.property(waitGraph, fc.array(fc.nat()), fc.integer({ min: 0, max: 30 }), (entries, picks, maxCycles) => {
        // The spec lists the wait graph's edges in its order (so both number the vertices alike),
        // then repeats some of them in any order: duplicates spread across the spec change nothing.
        const edges = entries.flatMap(([waiter, holders]) => holders.map((holder) => [waiter, holder] as const));
        const repeated = picks.map((pick) => edges[pick % edges.length]!);
        const waits = new Map(entries);
        expect(DeadlockDetector.detect(specOf([...edges, ...repeated]), { maxCycles })).toEqual(DeadlockDetector.detectFromWaitGraph(waits, { maxCycles }));
      }),
      { numRuns: 200 },
    );
  });
});
