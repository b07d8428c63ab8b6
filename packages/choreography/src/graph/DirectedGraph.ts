import type { CsrGraph } from './CsrGraph';

/**
 * Builds a directed graph over string ids, then compiles it to a {@link CsrGraph}.
 *
 * @remarks
 * Internal to {@link DeadlockDetector}. Vertices are numbered by first appearance. Edges are kept as
 * two growable `Int32Array`s (source, target) until {@link DirectedGraph.compile}, which counting-sorts
 * them by source (stable: each vertex's successors stay in insertion order) and drops duplicate
 * edges, so every elementary cycle is reported once.
 *
 * @internal
 */
export class DirectedGraph {
  readonly names: string[] = [];
  readonly #indexOf = new Map<string, number>();
  #sources: Int32Array;
  #targets: Int32Array;
  #edgeCount = 0;

  /** `edgeCapacity`: how many edges to make room for up front (the arrays still grow past it). */
  constructor(edgeCapacity = 16) {
    const capacity = Math.max(16, edgeCapacity);
    this.#sources = new Int32Array(capacity);
    this.#targets = new Int32Array(capacity);
  }

  /** The index of `name`, adding the vertex when it is new. */
  vertex(name: string): number {
    let index = this.#indexOf.get(name);
    if (index === undefined) {
      index = this.names.length;
      this.#indexOf.set(name, index);
      this.names.push(name);
    }
    return index;
  }

  /** Adds the edge `from -> to`. */
  edge(from: string, to: string): void {
    const source = this.vertex(from);
    const target = this.vertex(to);
    const count = this.#edgeCount;
    if (count === this.#sources.length) this.#grow();
    this.#sources[count] = source;
    this.#targets[count] = target;
    this.#edgeCount = count + 1;
  }

  /** The graph in compressed sparse row form without duplicate edges, in O(V + E). */
  compile(): CsrGraph {
    const size = this.names.length;
    const edgeCount = this.#edgeCount;
    const sources = this.#sources;
    const edgeTargets = this.#targets;
    const offsets = new Int32Array(size + 1);
    for (let edge = 0; edge < edgeCount; edge += 1) offsets[(sources[edge] as number) + 1] += 1;
    for (let vertex = 0; vertex < size; vertex += 1) offsets[vertex + 1] += offsets[vertex] as number;
    const targets = new Int32Array(edgeCount);
    const cursor = offsets.slice(0, size);
    for (let edge = 0; edge < edgeCount; edge += 1) {
      const source = sources[edge] as number;
      const at = cursor[source] as number;
      targets[at] = edgeTargets[edge] as number;
      cursor[source] = at + 1;
    }
    // Drop duplicates in place, keeping each first occurrence; `lastSeenFrom` (reusing `cursor`)
    // remembers which source last listed a target.
    const lastSeenFrom = cursor.fill(-1);
    let kept = 0;
    for (let vertex = 0; vertex < size; vertex += 1) {
      const start = offsets[vertex] as number;
      const end = offsets[vertex + 1] as number;
      offsets[vertex] = kept;
      for (let edge = start; edge < end; edge += 1) {
        const target = targets[edge] as number;
        if (lastSeenFrom[target] === vertex) continue;
        lastSeenFrom[target] = vertex;
        targets[kept] = target;
        kept += 1;
      }
    }
    offsets[size] = kept;
    return { size, offsets, targets: kept === edgeCount ? targets : targets.slice(0, kept) };
  }

  #grow(): void {
    const sources = new Int32Array(this.#sources.length * 2);
    const targets = new Int32Array(this.#targets.length * 2);
    sources.set(this.#sources);
    targets.set(this.#targets);
    this.#sources = sources;
    this.#targets = targets;
  }
}
