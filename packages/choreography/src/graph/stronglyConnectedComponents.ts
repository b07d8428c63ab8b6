import type { CsrGraph } from './CsrGraph';

/**
 * Reusable per-graph arrays for {@link stronglyConnectedComponents}, so repeated runs on subsets
 * cost O(subset), not O(graph), and no run allocates per vertex.
 */
export interface SccScratch {
  readonly index: Int32Array;
  readonly low: Int32Array;
  readonly onStack: Uint8Array;
  /** Tarjan's stack of visited vertices not yet assigned to a component. */
  readonly stack: Int32Array;
  /** The explicit call stack: the vertex of each frame and the position of its next edge in `targets`. */
  readonly callVertex: Int32Array;
  readonly callEdge: Int32Array;
  /** Output: the members of every component found, component after component, in the order found. */
  readonly members: Int32Array;
  /** Output: `ends[c]` is where component `c` ends in `members` (it starts where `c - 1` ends, or at 0). */
  readonly ends: Int32Array;
}

/** Allocates {@link SccScratch} for a graph of `size` vertices. */
export function sccScratch(size: number): SccScratch {
  return {
    index: new Int32Array(size),
    low: new Int32Array(size),
    onStack: new Uint8Array(size),
    stack: new Int32Array(size),
    callVertex: new Int32Array(size),
    callEdge: new Int32Array(size),
    members: new Int32Array(size),
    ends: new Int32Array(size),
  };
}

/**
 * Tarjan's strongly connected components of the subgraph induced by `vertices`, iteratively.
 *
 * @remarks
 * Internal to {@link DeadlockDetector}. O(V + E) over the subset; an explicit call stack (typed
 * arrays in `scratch`) replaces recursion so a 100,000-vertex chain does not overflow the JavaScript
 * stack. The subset is the vertices `v` with `stamp[v] === subset`, which must be exactly the members
 * of `vertices`. Components are written to `scratch.members` and `scratch.ends`, in the order Tarjan
 * completes them; the return value is how many there are.
 *
 * @internal
 */
export function stronglyConnectedComponents(
  graph: CsrGraph,
  vertices: Int32Array,
  stamp: Int32Array,
  subset: number,
  scratch: SccScratch,
): number {
  const { offsets, targets } = graph;
  const { index, low, onStack, stack, callVertex, callEdge, members, ends } = scratch;
  for (let i = 0; i < vertices.length; i += 1) {
    const vertex = vertices[i] as number;
    index[vertex] = -1;
    onStack[vertex] = 0;
  }
  let counter = 0;
  let stackSize = 0;
  let depth = 0;
  let written = 0;
  let componentCount = 0;

  for (let i = 0; i < vertices.length; i += 1) {
    const root = vertices[i] as number;
    if (index[root] !== -1) continue;
    index[root] = counter;
    low[root] = counter;
    counter += 1;
    stack[stackSize] = root;
    stackSize += 1;
    onStack[root] = 1;
    callVertex[0] = root;
    callEdge[0] = offsets[root] as number;
    depth = 1;
    while (depth > 0) {
      const top = depth - 1;
      const vertex = callVertex[top] as number;
      const edge = callEdge[top] as number;
      if (edge < (offsets[vertex + 1] as number)) {
        callEdge[top] = edge + 1;
        const next = targets[edge] as number;
        if (stamp[next] !== subset) continue;
        const nextIndex = index[next] as number;
        if (nextIndex === -1) {
          index[next] = counter;
          low[next] = counter;
          counter += 1;
          stack[stackSize] = next;
          stackSize += 1;
          onStack[next] = 1;
          callVertex[depth] = next;
          callEdge[depth] = offsets[next] as number;
          depth += 1;
        } else if (onStack[next] === 1 && nextIndex < (low[vertex] as number)) {
          low[vertex] = nextIndex;
        }
        continue;
      }
      depth = top;
      const lowest = low[vertex] as number;
      if (depth > 0) {
        const parent = callVertex[depth - 1] as number;
        if (lowest < (low[parent] as number)) low[parent] = lowest;
      }
      if (lowest === index[vertex]) {
        let member: number;
        do {
          stackSize -= 1;
          member = stack[stackSize] as number;
          onStack[member] = 0;
          members[written] = member;
          written += 1;
        } while (member !== vertex);
        ends[componentCount] = written;
        componentCount += 1;
      }
    }
  }
  return componentCount;
}
