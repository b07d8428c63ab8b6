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
 * only the vertices of cyclic components; Johnson's search then runs inside each component, in order
 * of least vertex. Each Johnson round finds at least one cycle, so the whole search costs
 * O((c + 1)(V + E)) for c listed cycles. No recursion: explicit stacks only.
 *
 * @internal
 */
export function elementaryCycles(adjacency: readonly (readonly number[])[], maxCycles: number): CycleSearch {
  const size = adjacency.length;
  const scratch = sccScratch(size);
  const everyVertex = Array.from({ length: size }, (_, vertex) => vertex);
  const cyclic = stronglyConnectedComponents(adjacency, everyVertex, () => true, scratch).filter((component) => isCyclic(adjacency, component));
  const cycles: number[][] = [];
  if (cyclic.length === 0) return { hasCycle: false, cycles, truncated: false };
  if (maxCycles === 0) return { hasCycle: true, cycles, truncated: true };

  const search = new JohnsonSearch(adjacency, scratch, maxCycles, cycles);
  const ordered = cyclic.map((component) => component.sort((a, b) => a - b)).sort((a, b) => (a[0] as number) - (b[0] as number));
  for (const component of ordered) {
    if (search.run(component)) return { hasCycle: true, cycles, truncated: true };
  }
  return { hasCycle: true, cycles, truncated: false };
}

function isCyclic(adjacency: readonly (readonly number[])[], component: readonly number[]): boolean {
  const only = component[0] as number;
  return component.length > 1 || (adjacency[only] as readonly number[]).includes(only);
}

class JohnsonSearch {
  readonly #adjacency: readonly (readonly number[])[];
  readonly #scratch: SccScratch;
  readonly #maxCycles: number;
  readonly #cycles: number[][];
  readonly #stamp: Int32Array;
  readonly #blocked: Uint8Array;
  readonly #blockedBy: (Set<number> | undefined)[];
  #currentStamp = 0;

  constructor(adjacency: readonly (readonly number[])[], scratch: SccScratch, maxCycles: number, cycles: number[][]) {
    this.#adjacency = adjacency;
    this.#scratch = scratch;
    this.#maxCycles = maxCycles;
    this.#cycles = cycles;
    this.#stamp = new Int32Array(adjacency.length);
    this.#blocked = new Uint8Array(adjacency.length);
    this.#blockedBy = new Array<Set<number> | undefined>(adjacency.length);
  }

  /** Lists the cycles of one strongly connected component (sorted ascending); true when truncated. */
  run(component: readonly number[]): boolean {
    let remaining = component;
    while (remaining.length > 0) {
      const subset = this.#mark(remaining);
      const components = stronglyConnectedComponents(this.#adjacency, remaining, (v) => this.#stamp[v] === subset, this.#scratch);
      let best: number[] | undefined;
      let bestLeast = Infinity;
      for (const candidate of components) {
        if (!isCyclic(this.#adjacency, candidate)) continue;
        const least = candidate.reduce((a, b) => (b < a ? b : a));
        if (least < bestLeast) {
          best = candidate;
          bestLeast = least;
        }
      }
      if (best === undefined) return false;
      if (this.#circuits(bestLeast, best)) return true;
      remaining = remaining.filter((vertex) => vertex > bestLeast);
    }
    return false;
  }

  #mark(vertices: readonly number[]): number {
    this.#currentStamp += 1;
    for (const vertex of vertices) this.#stamp[vertex] = this.#currentStamp;
    return this.#currentStamp;
  }

  /** Johnson's CIRCUIT from `start` inside `component`, with explicit stacks; true when truncated. */
  #circuits(start: number, component: readonly number[]): boolean {
    const allowed = this.#mark(component);
    const blocked = this.#blocked;
    for (const vertex of component) {
      blocked[vertex] = 0;
      this.#blockedBy[vertex]?.clear();
    }
    const path = [start];
    const nextEdge = [0];
    const found = [0];
    blocked[start] = 1;
    while (path.length > 0) {
      const top = path.length - 1;
      const vertex = path[top] as number;
      const edges = this.#adjacency[vertex] as readonly number[];
      const edge = nextEdge[top] as number;
      if (edge < edges.length) {
        nextEdge[top] = edge + 1;
        const next = edges[edge] as number;
        if (this.#stamp[next] !== allowed) continue;
        if (next === start) {
          found[top] = 1;
          if (this.#cycles.length === this.#maxCycles) return true;
          this.#cycles.push([...path]);
        } else if (blocked[next] === 0) {
          path.push(next);
          nextEdge.push(0);
          found.push(0);
          blocked[next] = 1;
        }
        continue;
      }
      if (found[top] === 1) this.#unblock(vertex);
      else {
        for (const next of edges) {
          if (this.#stamp[next] !== allowed) continue;
          let set = this.#blockedBy[next];
          if (set === undefined) {
            set = new Set();
            this.#blockedBy[next] = set;
          }
          set.add(vertex);
        }
      }
      path.pop();
      nextEdge.pop();
      const foundHere = found.pop();
      if (foundHere === 1 && found.length > 0) found[found.length - 1] = 1;
    }
    return false;
  }

  #unblock(vertex: number): void {
    const stack = [vertex];
    while (stack.length > 0) {
      const current = stack.pop() as number;
      if (this.#blocked[current] === 0) continue;
      this.#blocked[current] = 0;
      const waiting = this.#blockedBy[current];
      if (waiting === undefined) continue;
      for (const other of waiting) if (this.#blocked[other] === 1) stack.push(other);
      waiting.clear();
    }
  }
}
