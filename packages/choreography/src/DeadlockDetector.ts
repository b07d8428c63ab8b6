import { ConfigError, type ConfigIssue, parseConfig } from '@rxagents/core';
import type { ChoreographySpec } from './ChoreographySpec';
import { type DeadlockDetectorOptions, DeadlockDetectorOptionsSchema } from './DeadlockDetectorOptions';
import type { DeadlockResult } from './DeadlockResult';
import type { Interaction } from './Interaction';
import { DirectedGraph } from './graph/DirectedGraph';
import { elementaryCycles } from './graph/elementaryCycles';

/**
 * A wait-for graph for {@link DeadlockDetector.detectFromWaitGraph}: each key waits for every id in its list.
 *
 * @example
 * ```ts
 * import type { WaitGraph } from '@rxagents/choreography';
 *
 * const waits: WaitGraph = new Map([['payments', ['ledger']], ['ledger', ['payments']]]);
 * const sameAsRecord: WaitGraph = { payments: ['ledger'], ledger: ['payments'] };
 * ```
 */
export type WaitGraph = ReadonlyMap<string, Iterable<string>> | Readonly<Record<string, readonly string[]>>;

const WAIT_GRAPH = 'DeadlockDetector wait graph';

function analyse(graph: DirectedGraph, options: DeadlockDetectorOptions | undefined): DeadlockResult {
  const { maxCycles } = parseConfig(DeadlockDetectorOptionsSchema, options ?? {}, 'DeadlockDetector options');
  const search = elementaryCycles(graph.compile(), maxCycles);
  return {
    hasDeadlock: search.hasCycle,
    cycles: search.cycles.map((cycle) => cycle.map((vertex) => graph.names[vertex] as string)),
    truncated: search.truncated,
  };
}

/**
 * Finds cycles in a choreography's source-to-target graph, or in a runtime wait-for graph.
 *
 * @remarks
 * `hasDeadlock` is decided in O(V + E) with Tarjan's strongly connected components: true when some
 * component has two vertices or more, or a vertex waits for itself. `cycles` lists the elementary
 * cycles (Johnson's algorithm), each as the ids along it (`['a', 'b']` means a -> b -> a), up to
 * `maxCycles` (default 100); past it `truncated` is true, so a dense graph cannot hang the caller.
 * Both searches are iterative: a 100,000-vertex graph does not overflow the stack.
 *
 * {@link ChoreographyEngine} calls `detect` before each run and logs a cycle as a warning; call it
 * yourself to reject a spec.
 *
 * @example
 * ```ts
 * import { ChoreographySpec, DeadlockDetector } from '@rxagents/choreography';
 *
 * const spec = ChoreographySpec.builder('review-loop')
 *   .initialEvent('start')
 *   .interaction('draft', 'editor', 'writer', 'start', 'drafted', 'Write a draft')
 *   .interaction('review', 'writer', 'editor', 'drafted', null, 'Review the draft')
 *   .build();
 * const { hasDeadlock, cycles } = DeadlockDetector.detect(spec);
 * console.log(hasDeadlock, cycles); // true [ [ 'editor', 'writer' ] ]
 *
 * const waits = DeadlockDetector.detectFromWaitGraph({ a: ['b'], b: ['c'], c: [] });
 * console.log(waits.hasDeadlock); // false
 * ```
 */
export const DeadlockDetector = Object.freeze({
  /**
   * Checks a spec's source-to-target graph (one edge per interaction, `source -> target`).
   *
   * @throws `ConfigError` when `spec` is not a `ChoreographySpec` or `options.maxCycles` is not a non-negative integer.
   */
  detect(spec: ChoreographySpec, options?: DeadlockDetectorOptions): DeadlockResult {
    const interactions = (spec as Partial<ChoreographySpec> | null)?.interactions;
    if (!Array.isArray(interactions)) throw new ConfigError('DeadlockDetector.detect', [{ path: 'spec', rule: 'must be a ChoreographySpec', received: spec }]);
    const graph = new DirectedGraph(interactions.length);
    for (let i = 0; i < interactions.length; i += 1) {
      const interaction = interactions[i] as Interaction;
      graph.edge(interaction.source, interaction.target);
    }
    return analyse(graph, options);
  },

  /**
   * Checks a runtime wait-for graph: a Map or record from an id to the ids it waits for.
   *
   * @throws `ConfigError` when `options.maxCycles` is not a non-negative integer, or when the graph is
   * not a Map or a record, a list of ids is a single string or not iterable, or an id is not a string.
   */
  detectFromWaitGraph(waitGraph: WaitGraph, options?: DeadlockDetectorOptions): DeadlockResult {
    if (typeof waitGraph !== 'object' || waitGraph === null) {
      throw new ConfigError(WAIT_GRAPH, [{ path: '', rule: 'must be a Map or a record from an id to the ids it waits for', received: waitGraph }]);
    }
    const graph = new DirectedGraph();
    const issues: ConfigIssue[] = [];
    const entries: Iterable<readonly [unknown, unknown]> = waitGraph instanceof Map ? waitGraph : Object.entries(waitGraph);
    for (const [waiter, holders] of entries) {
      if (typeof waiter !== 'string') {
        issues.push({ path: String(waiter), rule: 'must be an id (a string)', received: waiter });
        continue;
      }
      // A string is iterable too: read as a list, `'bob'` would mean waiting for "b" and "o".
      if (typeof holders === 'string' || typeof (holders as Partial<Iterable<unknown>> | null | undefined)?.[Symbol.iterator] !== 'function') {
        issues.push({ path: waiter, rule: 'must list the ids it waits for (an array or another iterable of ids, not one string)', received: holders });
        continue;
      }
      graph.vertex(waiter);
      let index = 0;
      for (const holder of holders as Iterable<unknown>) {
        if (typeof holder === 'string') graph.edge(waiter, holder);
        else issues.push({ path: `${waiter}.${index}`, rule: 'must be an id (a string)', received: holder });
        index += 1;
      }
    }
    if (issues.length > 0) throw new ConfigError(WAIT_GRAPH, issues);
    return analyse(graph, options);
  },
});
