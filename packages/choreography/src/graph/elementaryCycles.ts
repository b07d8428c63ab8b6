import { type CsrGraph, hasSelfLoop } from './CsrGraph';
import { type SccScratch, sccScratch, stronglyConnectedComponents } from './stronglyConnectedComponents';

/** What {@link elementaryCycles} found. */
export interface CycleSearch {
  /** Whether any cycle exists (a strongly connected component with two vertices or a self-loop). */
  readonly hasCycle: boolean;
  /** Elementary cycles as vertex index lists, at most `maxCycles`. */
  readonly cycles: number[][];
  /** Whether more cycles exist than were listed. */
  readonly truncated: boolean;
}

/**
 * Johnson's elementary circuits, iteratively, stopping after `maxCycles`.
 *
 * @remarks
 * Internal to {@link DeadlockDetector}. A first Tarjan pass (O(V + E)) answers `hasCycle` and keeps
 * only the cyclic components; Johnson's search then runs inside each component, in order of least
 * vertex. Each Johnson round finds at least one cycle, so the whole search costs O((c + 1)(V + E))
 * for c listed cycles; components past the cap are never sorted nor searched. No recursion: explicit
 * stacks only, in typed arrays.
 *
 * @internal
 */
export function elementaryCycles(graph: CsrGraph, maxCycles: number): CycleSearch {
  const size = graph.size;
  const scratch = sccScratch(size);
  const everyVertex = new Int32Array(size);
  for (let vertex = 0; vertex < size; vertex += 1) everyVertex[vertex] = vertex;
  const stamp = new Int32Array(size).fill(1);
  const componentCount = stronglyConnectedComponents(graph, everyVertex, stamp, 1, scratch);

  // The cyclic components, as [start, end) in `members` and their least vertex.
  const cyclic: { start: number; end: number; least: number }[] = [];
  const { members, ends } = scratch;
  for (let component = 0, start = 0; component < componentCount; component += 1) {
    const end = ends[component] as number;
    if (end - start > 1 || hasSelfLoop(graph, members[start] as number)) cyclic.push({ start, end, least: least(members, start, end) });
    start = end;
  }
  const cycles: number[][] = [];
  if (cyclic.length === 0) return { hasCycle: false, cycles, truncated: false };
  if (maxCycles === 0) return { hasCycle: true, cycles, truncated: true };

  // Johnson's rounds reuse the scratch, so keep the first pass's components apart.
  const firstPass = members.slice(0, ends[componentCount - 1] as number);
  const search = new JohnsonSearch(graph, scratch, stamp, 1, maxCycles, cycles);
  cyclic.sort((a, b) => a.least - b.least);
  for (const { start, end } of cyclic) {
    if (search.run(firstPass.subarray(start, end).sort())) return { hasCycle: true, cycles, truncated: true };
  }
  return { hasCycle: true, cycles, truncated: false };
}

function least(vertices: Int32Array, start: number, end: number): number {
  let result = vertices[start] as number;
  for (let i = start + 1; i < end; i += 1) if ((vertices[i] as number) < result) result = vertices[i] as number;
  return result;
}

class JohnsonSearch {
  readonly #graph: CsrGraph;
  readonly #scratch: SccScratch;
  readonly #maxCycles: number;
  readonly #cycles: number[][];
  readonly #stamp: Int32Array;
  readonly #blocked: Uint8Array;
  /**
   * Johnson's B lists as linked lists over edge positions: edge `e = vertex -> next` is in B(next)
   * (vertex waits for next to unblock) when `inB[e]` is 1; `bHead[next]` is its first edge, `bNext[e]`
   * the following one, and `edgeSource[e]` is `vertex`. Edges are unique, so no pair is listed twice.
   */
  readonly #inB: Uint8Array;
  readonly #bHead: Int32Array;
  readonly #bNext: Int32Array;
  readonly #edgeSource: Int32Array;
  readonly #unblockStack: number[] = [];
  readonly #path: Int32Array;
  readonly #nextEdge: Int32Array;
  readonly #found: Uint8Array;
  #currentStamp: number;

  constructor(graph: CsrGraph, scratch: SccScratch, stamp: Int32Array, usedStamp: number, maxCycles: number, cycles: number[][]) {
    this.#graph = graph;
    this.#scratch = scratch;
    this.#maxCycles = maxCycles;
    this.#cycles = cycles;
    this.#stamp = stamp;
    this.#currentStamp = usedStamp;
    this.#blocked = new Uint8Array(graph.size);
    const edgeCount = graph.offsets[graph.size] as number;
    this.#inB = new Uint8Array(edgeCount);
    this.#bHead = new Int32Array(graph.size).fill(-1);
    this.#bNext = new Int32Array(edgeCount);
    this.#edgeSource = new Int32Array(edgeCount);
    this.#path = new Int32Array(graph.size);
    this.#nextEdge = new Int32Array(graph.size);
    this.#found = new Uint8Array(graph.size);
  }

  /** Lists the cycles of one strongly connected component (sorted ascending); true when truncated. */
  run(component: Int32Array): boolean {
    const { members, ends } = this.#scratch;
    let from = 0;
    while (from < component.length) {
      const remaining = component.subarray(from);
      const subset = this.#mark(remaining);
      const count = stronglyConnectedComponents(this.#graph, remaining, this.#stamp, subset, this.#scratch);
      let bestStart = -1;
      let bestEnd = -1;
      let bestLeast = Infinity;
      for (let candidate = 0, start = 0; candidate < count; candidate += 1) {
        const end = ends[candidate] as number;
        if (end - start > 1 || hasSelfLoop(this.#graph, members[start] as number)) {
          const candidateLeast = least(members, start, end);
          if (candidateLeast < bestLeast) {
            bestStart = start;
            bestEnd = end;
            bestLeast = candidateLeast;
          }
        }
        start = end;
      }
      if (bestStart === -1) return false;
      if (this.#circuits(bestLeast, members.subarray(bestStart, bestEnd))) return true;
      // The rest of the component: its vertices above bestLeast (it is sorted ascending).
      while (from < component.length && (component[from] as number) <= bestLeast) from += 1;
    }
    return false;
  }

  #mark(vertices: Int32Array): number {
    this.#currentStamp += 1;
    const current = this.#currentStamp;
    for (let i = 0; i < vertices.length; i += 1) this.#stamp[vertices[i] as number] = current;
    return current;
  }

  /** Johnson's CIRCUIT from `start` inside `component`, with explicit stacks; true when truncated. */
  #circuits(start: number, component: Int32Array): boolean {
    const allowed = this.#mark(component);
    const stamp = this.#stamp;
    const blocked = this.#blocked;
    const { offsets, targets } = this.#graph;
    const path = this.#path;
    const nextEdge = this.#nextEdge;
    const found = this.#found;
    const inB = this.#inB;
    const bHead = this.#bHead;
    const bNext = this.#bNext;
    const edgeSource = this.#edgeSource;
    for (let i = 0; i < component.length; i += 1) {
      const vertex = component[i] as number;
      blocked[vertex] = 0;
      this.#clearB(vertex);
    }
    path[0] = start;
    nextEdge[0] = offsets[start] as number;
    found[0] = 0;
    let depth = 1;
    blocked[start] = 1;
    while (depth > 0) {
      const top = depth - 1;
      const vertex = path[top] as number;
      const edge = nextEdge[top] as number;
      const end = offsets[vertex + 1] as number;
      if (edge < end) {
        nextEdge[top] = edge + 1;
        const next = targets[edge] as number;
        if (stamp[next] !== allowed) continue;
        if (next === start) {
          found[top] = 1;
          if (this.#cycles.length === this.#maxCycles) return true;
          this.#cycles.push(Array.from(path.subarray(0, depth)));
        } else if (blocked[next] === 0) {
          path[depth] = next;
          nextEdge[depth] = offsets[next] as number;
          found[depth] = 0;
          depth += 1;
          blocked[next] = 1;
        }
        continue;
      }
      if (found[top] === 1) this.#unblock(vertex);
      else {
        for (let e = offsets[vertex] as number; e < end; e += 1) {
          const next = targets[e] as number;
          if (stamp[next] !== allowed || inB[e] === 1) continue;
          inB[e] = 1;
          edgeSource[e] = vertex;
          bNext[e] = bHead[next] as number;
          bHead[next] = e;
        }
      }
      depth = top;
      if (found[top] === 1 && depth > 0) found[depth - 1] = 1;
    }
    return false;
  }

  /** Empties B(vertex). */
  #clearB(vertex: number): void {
    const inB = this.#inB;
    const bNext = this.#bNext;
    for (let e = this.#bHead[vertex] as number; e !== -1; e = bNext[e] as number) inB[e] = 0;
    this.#bHead[vertex] = -1;
  }

  /** Unblocks `vertex` and, transitively, every vertex waiting in its B list. */
  #unblock(vertex: number): void {
    const blocked = this.#blocked;
    const stack = this.#unblockStack;
    stack.push(vertex);
    while (stack.length > 0) {
      const current = stack.pop() as number;
      if (blocked[current] === 0) continue;
      blocked[current] = 0;
      const bNext = this.#bNext;
      for (let e = this.#bHead[current] as number; e !== -1; e = bNext[e] as number) {
        const other = this.#edgeSource[e] as number;
        if (blocked[other] === 1) stack.push(other);
      }
      this.#clearB(current);
    }
  }
}
