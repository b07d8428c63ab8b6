/**
 * A directed graph over dense vertex indices in compressed sparse row form.
 *
 * @remarks
 * Internal to {@link DeadlockDetector}. The successors of vertex `v` are
 * `targets[offsets[v]]` to `targets[offsets[v + 1] - 1]`, in the order their edges were added, each
 * once. Two typed arrays for the whole graph instead of one small JS array per vertex: no per-vertex
 * allocation, and the searches walk contiguous memory.
 *
 * @internal
 */
export interface CsrGraph {
  /** The number of vertices. */
  readonly size: number;
  /** `size + 1` entries: where each vertex's successors start in `targets`; the last is the edge count. */
  readonly offsets: Int32Array;
  /** The successors of every vertex, vertex after vertex. */
  readonly targets: Int32Array;
}

/** Whether `vertex` has an edge to itself. */
export function hasSelfLoop(graph: CsrGraph, vertex: number): boolean {
  const { offsets, targets } = graph;
  const end = offsets[vertex + 1] as number;
  for (let edge = offsets[vertex] as number; edge < end; edge += 1) if (targets[edge] === vertex) return true;
  return false;
}
