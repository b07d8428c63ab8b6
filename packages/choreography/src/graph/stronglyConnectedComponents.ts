/** Reusable per-graph arrays, so repeated runs on subsets cost O(subset), not O(graph). */
export interface SccScratch {
  readonly index: Int32Array;
  readonly low: Int32Array;
  readonly onStack: Uint8Array;
}

/** Allocates {@link SccScratch} for a graph of `size` vertices. */
export function sccScratch(size: number): SccScratch {
  return { index: new Int32Array(size), low: new Int32Array(size), onStack: new Uint8Array(size) };
}

/**
 * Tarjan's strongly connected components of the subgraph induced by `vertices`, iteratively.
 *
 * @remarks
 * Internal to {@link DeadlockDetector}. O(V + E) over the subset; an explicit call stack replaces
 * recursion so a 100,000-vertex chain does not overflow the JavaScript stack. `inSubset(v)` must be
 * true exactly for the members of `vertices`.
 *
 * @internal
 */
export function stronglyConnectedComponents(
  adjacency: readonly (readonly number[])[],
  vertices: readonly number[],
  inSubset: (vertex: number) => boolean,
  scratch: SccScratch,
): number[][] {
  const { index, low, onStack } = scratch;
  for (const vertex of vertices) {
    index[vertex] = -1;
    onStack[vertex] = 0;
  }
  let counter = 0;
  const stack: number[] = [];
  const components: number[][] = [];
  const callVertex: number[] = [];
  const callEdge: number[] = [];
  const enter = (vertex: number): void => {
    index[vertex] = counter;
    low[vertex] = counter;
    counter += 1;
    stack.push(vertex);
    onStack[vertex] = 1;
    callVertex.push(vertex);
    callEdge.push(0);
  };

  for (const root of vertices) {
    if (index[root] !== -1) continue;
    enter(root);
    while (callVertex.length > 0) {
      const top = callVertex.length - 1;
      const vertex = callVertex[top] as number;
      const edges = adjacency[vertex] as readonly number[];
      const edge = callEdge[top] as number;
      if (edge < edges.length) {
        callEdge[top] = edge + 1;
        const next = edges[edge] as number;
        if (!inSubset(next)) continue;
        if (index[next] === -1) enter(next);
        else if (onStack[next] === 1) low[vertex] = Math.min(low[vertex] as number, index[next] as number);
        continue;
      }
      callVertex.pop();
      callEdge.pop();
      if (callVertex.length > 0) {
        const parent = callVertex[callVertex.length - 1] as number;
        low[parent] = Math.min(low[parent] as number, low[vertex] as number);
      }
      if (low[vertex] === index[vertex]) {
        const component: number[] = [];
        let member: number;
        do {
          member = stack.pop() as number;
          onStack[member] = 0;
          component.push(member);
        } while (member !== vertex);
        components.push(component);
      }
    }
  }
  return components;
}
