/**
 * Where each node of a run view sits in its list of nodes, by `callId`, and which nodes started before
 * their parent: shared by a whole line of views folded one from the other, and still right for each.
 *
 * @remarks
 * Nodes are only ever added at the end, so an index that holds the first `n` nodes of a view also answers
 * for every earlier view of the same line: a view of `length` nodes reads only the entries below
 * `length`. Adding a node writes into the shared maps when the view extended is the newest the index
 * knows (`length === covered`), in O(1); a view folded from an older one (two events folded into one
 * view, a branch) gets a copy of the entries it can see instead, in O(nodes), so no view sees another
 * branch's nodes.
 */
export class NodeIndex {
  private constructor(
    private readonly ids: Map<string, number>,
    /** Nodes that started while their parent was not in the view, by the parent's id: the parent's late children. */
    private readonly orphans: Map<string, number[]>,
    /** How many nodes of its newest view the index holds. */
    private covered: number,
  ) {}

  /** An index of `nodes`, in O(n): for a view the package did not fold (one made by hand, or parsed from JSON). */
  static of(nodes: readonly { readonly callId: string; readonly parentCallId: string | null }[]): NodeIndex {
    const index = new NodeIndex(new Map(), new Map(), 0);
    for (let i = 0; i < nodes.length; i++) index.ids.set((nodes[i] as { callId: string }).callId, i);
    for (let i = 0; i < nodes.length; i++) {
      const parent = (nodes[i] as { parentCallId: string | null }).parentCallId;
      if (parent !== null && !index.ids.has(parent)) index.orphanOf(parent).push(i);
    }
    index.covered = nodes.length;
    return index;
  }

  /** The position of `callId` in a view of `length` nodes, -1 if it has none. */
  find(callId: string, length: number): number {
    const at = this.ids.get(callId);
    return at !== undefined && at < length ? at : -1;
  }

  /** The positions of the nodes of a view of `length` nodes that started under `callId` before it was in the view. */
  lateChildren(callId: string, length: number): number[] {
    const orphans = this.orphans.get(callId);
    return orphans === undefined ? [] : orphans.filter((at) => at < length);
  }

  /**
   * The index after a view of `length` nodes added the node `callId` at position `length`; `orphan` says
   * its parent is not in the view. This index itself when that view is the newest it knows, else a copy.
   */
  add(callId: string, parentCallId: string | null, orphan: boolean, length: number): NodeIndex {
    const index = length === this.covered ? this : this.copy(length);
    index.ids.set(callId, length);
    if (orphan && parentCallId !== null) index.orphanOf(parentCallId).push(length);
    index.covered = length + 1;
    return index;
  }

  private copy(length: number): NodeIndex {
    const ids = new Map<string, number>();
    for (const [callId, at] of this.ids) if (at < length) ids.set(callId, at);
    const orphans = new Map<string, number[]>();
    for (const [parent, children] of this.orphans) {
      const seen = children.filter((at) => at < length);
      if (seen.length > 0) orphans.set(parent, seen);
    }
    return new NodeIndex(ids, orphans, length);
  }

  private orphanOf(parent: string): number[] {
    let children = this.orphans.get(parent);
    if (children === undefined) this.orphans.set(parent, (children = []));
    return children;
  }
}
