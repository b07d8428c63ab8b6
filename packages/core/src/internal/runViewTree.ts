import { NodeIndex } from './NodeIndex';
import { PersistentList } from './PersistentList';

/** What a view of a run is made of besides its nodes, by name, in the order a view lists them. */
interface ViewShape<N> {
  readonly runId: string | null;
  readonly status: string;
  readonly rootId: string | null;
  readonly nodes: readonly N[];
  readonly usage: unknown;
  readonly metrics: unknown;
  readonly at: number | null;
}

/** A node as the index reads it. */
interface IndexedNode {
  readonly callId: string;
  readonly parentCallId: string | null;
}

/** What a folded view keeps of its nodes: a persistent list, the index shared by its line of views, and a hand-made view's own extra fields. */
export interface Tree<N> {
  readonly list: PersistentList<N>;
  readonly index: NodeIndex;
  /** Own fields of a view made by hand beyond a view's, carried into every view folded from it. */
  readonly extras?: Readonly<Record<string, unknown>> | undefined;
}

const KNOWN = new Set(['runId', 'status', 'rootId', 'nodes', 'usage', 'metrics', 'at']);

class Marked {
  constructor(target: object) {
    return target;
  }
}

/**
 * Ties a view the package folded to its {@link Tree}, and caches its `nodes` once read, in private fields
 * added to the view itself: invisible to spreading, `Object.keys`, `JSON.stringify`, `structuredClone`
 * and equality checks, and not carried by a copy (`{ ...view }` reads as a view made by hand).
 */
class TreeMark extends Marked {
  readonly #tree: Tree<unknown>;
  #nodes: readonly unknown[] | undefined;

  constructor(view: object, tree: Tree<unknown>) {
    super(view);
    this.#tree = tree;
    this.#nodes = undefined;
  }

  static treeOf(view: object): Tree<unknown> | undefined {
    return #tree in view ? (view as TreeMark).#tree : undefined;
  }

  static nodesOf(view: object): readonly unknown[] {
    const mark = view as TreeMark;
    return (mark.#nodes ??= Object.freeze(mark.#tree.list.toArray()));
  }
}

/**
 * `nodes` of every folded view: one getter shared by all of them (a getter of each view's own would make
 * V8 keep every view as a slow dictionary object), building the view's array on first read.
 */
const NODES: PropertyDescriptor = {
  get(this: object): readonly unknown[] {
    return TreeMark.nodesOf(this);
  },
  enumerable: true,
  configurable: true,
};

/** The tree of `view`: its own for a view the package folded, else built from its `nodes` in O(nodes). */
export function treeOf<N extends IndexedNode>(view: ViewShape<N>): Tree<N> {
  const tree = TreeMark.treeOf(view) as Tree<N> | undefined;
  if (tree !== undefined) return tree;
  const extraKeys = Object.keys(view).filter((key) => !KNOWN.has(key));
  const extras = extraKeys.length === 0 ? undefined : Object.fromEntries(extraKeys.map((key) => [key, (view as unknown as Record<string, unknown>)[key]]));
  return { list: PersistentList.of(view.nodes), index: NodeIndex.of(view.nodes), extras };
}

/** The fields of `view` other than `nodes`, without reading `nodes`: a new object, to change before {@link viewOf}. */
export function fieldsOf<V extends ViewShape<unknown>>(view: V): { -readonly [K in Exclude<keyof V, 'nodes'>]: V[K] } {
  return { runId: view.runId, status: view.status, rootId: view.rootId, usage: view.usage, metrics: view.metrics, at: view.at } as { -readonly [K in Exclude<keyof V, 'nodes'>]: V[K] };
}

/** A view with `fields` whose `nodes` are `tree`'s, read as a frozen array built on first read. */
export function viewOf<V extends ViewShape<N>, N>(fields: Omit<V, 'nodes'>, tree: Tree<N>): V {
  // The keys in the order of the view's interface (after a hand-made view's own extra keys), as an object literal would have them.
  const view = (tree.extras === undefined ? { runId: fields.runId, status: fields.status, rootId: fields.rootId } : { ...tree.extras, runId: fields.runId, status: fields.status, rootId: fields.rootId }) as Record<string, unknown>;
  Object.defineProperty(view, 'nodes', NODES);
  view['usage'] = fields.usage;
  view['metrics'] = fields.metrics;
  view['at'] = fields.at;
  new TreeMark(view, tree as Tree<unknown>);
  return view as unknown as V;
}
