/**
 * A directed graph over string ids, stored as adjacency lists of dense indices.
 *
 * @remarks
 * Internal to {@link DeadlockDetector}. Vertices are numbered by first appearance; duplicate edges
 * are dropped, so every elementary cycle is reported once.
 *
 * @internal
 */
export class DirectedGraph {
  readonly names: string[] = [];
  readonly adjacency: number[][] = [];
  readonly #indexOf = new Map<string, number>();

  /** The index of `name`, adding the vertex when it is new. */
  vertex(name: string): number {
    let index = this.#indexOf.get(name);
    if (index === undefined) {
      index = this.names.length;
      this.#indexOf.set(name, index);
      this.names.push(name);
      this.adjacency.push([]);
    }
    return index;
  }

  /** Adds the edge `from -> to`. */
  edge(from: string, to: string): void {
    const source = this.vertex(from);
    const target = this.vertex(to);
    (this.adjacency[source] as number[]).push(target);
  }

  /** Drops duplicate edges, in O(V + E). */
  deduplicate(): this {
    const lastSeenFrom = new Int32Array(this.names.length).fill(-1);
    this.adjacency.forEach((targets, source) => {
      let kept = 0;
      for (const target of targets) {
        if (lastSeenFrom[target] === source) continue;
        lastSeenFrom[target] = source;
        targets[kept] = target;
        kept += 1;
      }
      targets.length = kept;
    });
    return this;
  }

  /** Whether `vertex` has an edge to itself. */
  hasSelfLoop(vertex: number): boolean {
    return (this.adjacency[vertex] as number[]).includes(vertex);
  }
}
