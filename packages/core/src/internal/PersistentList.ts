const BITS = 5;
const WIDTH = 1 << BITS;
const MASK = WIDTH - 1;

type Branch = readonly unknown[];

/**
 * An immutable list whose `set` and `push` return a new list in O(log n) and leave the old one as it was.
 *
 * @remarks
 * A tree of arrays of 32 (a bit-partitioned trie, as in Clojure's vectors): an entry's index, read 5 bits
 * at a time, is its path from the root. Changing or adding an entry copies the arrays on its path (three
 * of them for up to 32,768 entries) and shares every other array with the old list, so a fold that keeps
 * each step's list (one per view of a run) costs the same per step for 10 entries as for 10,000.
 */
export class PersistentList<T> {
  private static readonly EMPTY = new PersistentList<never>(0, 0, []);

  private constructor(
    /** How many entries the list holds. */
    readonly length: number,
    /** The bit offset of the root's slot in an index: 0 while the root holds the entries themselves. */
    private readonly shift: number,
    private readonly root: Branch,
  ) {}

  /** The list of no entries (one, shared). */
  static empty<T>(): PersistentList<T> {
    return PersistentList.EMPTY;
  }

  /** A list of `items`, in O(n). */
  static of<T>(items: readonly T[]): PersistentList<T> {
    let list = PersistentList.empty<T>();
    for (const item of items) list = list.push(item);
    return list;
  }

  /** The entry at `index`, `undefined` outside `0 .. length - 1`. */
  at(index: number): T | undefined {
    if (!(index >= 0 && index < this.length)) return undefined;
    let node = this.root;
    for (let level = this.shift; level > 0; level -= BITS) node = node[(index >>> level) & MASK] as Branch;
    return node[index & MASK] as T;
  }

  /** A list with `value` at `index` (which must be below `length`), everything else shared. */
  set(index: number, value: T): PersistentList<T> {
    if (!(index >= 0 && index < this.length)) throw new RangeError(`PersistentList.set: index ${index} outside 0..${this.length - 1}`);
    return new PersistentList(this.length, this.shift, assoc(this.root, this.shift, index, value));
  }

  /** A list with `value` after the last entry. */
  push(value: T): PersistentList<T> {
    const index = this.length;
    if (index === 1 << (this.shift + BITS)) {
      // The tree is full: it becomes the first child of a new, one level higher root.
      return new PersistentList(index + 1, this.shift + BITS, assoc([this.root], this.shift + BITS, index, value));
    }
    return new PersistentList(index + 1, this.shift, assoc(this.root, this.shift, index, value));
  }

  /** The entries as a new array, in O(n). */
  toArray(): T[] {
    const out: T[] = [];
    collect(this.root, this.shift, out);
    return out;
  }
}

/** A copy of `node` (the subtree at `level`) with `value` at `index`, creating the arrays on the path that are missing. */
function assoc(node: Branch | undefined, level: number, index: number, value: unknown): Branch {
  const copy = node === undefined ? [] : node.slice();
  const slot = (index >>> level) & MASK;
  copy[slot] = level === 0 ? value : assoc(node?.[slot] as Branch | undefined, level - BITS, index, value);
  return copy;
}

function collect(node: Branch, level: number, out: unknown[]): void {
  if (level === 0) {
    for (let i = 0; i < node.length; i++) out.push(node[i]);
    return;
  }
  for (let i = 0; i < node.length; i++) collect(node[i] as Branch, level - BITS, out);
}
