/** The backing array the versions of one {@link AppendLog} share, and how many elements were copied for it. */
interface Store<T> {
  readonly items: T[];
  copied: number;
}

/**
 * An append-only list whose versions share one backing array: the persistent structure behind every
 * list a pattern run grows step by step (results, transcripts, votes, outputs).
 *
 * @remarks
 * `append` is O(1): it pushes onto the shared backing array and returns a longer view of it; the
 * version appended to keeps its own length, so it still reads as it was. Appending to a version that
 * is no longer the newest (a branch) copies that version's items once into a new backing array. A
 * version reads as a real array through {@link AppendLog.toArray}: built on first read, frozen (so
 * nobody can change what another snapshot shares) and cached, so only snapshots that are read pay
 * for a copy, once. `copiedElements` counts every element copied for the log's backing arrays (reads
 * and branches), which the tests use to check that growing a log copies nothing. Internal: not
 * exported from the package.
 */
export class AppendLog<T> {
  // TypeScript `private`, not `#private`: the hot path of every pattern step (some loaders lower `#` fields to WeakMaps).
  private readonly store: Store<T>;
  private array: readonly T[] | undefined;
  /** How many items this version holds. */
  readonly length: number;

  private constructor(store: Store<T>, length: number) {
    this.store = store;
    this.length = length;
  }

  /** An empty log. */
  static empty<T>(): AppendLog<T> {
    return new AppendLog<T>({ items: [], copied: 0 }, 0);
  }

  /** A log holding a copy of `items` (one copy, counted). */
  static of<T>(items: readonly T[]): AppendLog<T> {
    return new AppendLog<T>({ items: [...items], copied: items.length }, items.length);
  }

  /** This version plus `item`, in O(1) unless this version is not the newest (then its items are copied once). */
  append(item: T): AppendLog<T> {
    const store = this.store;
    if (store.items.length === this.length) {
      store.items.push(item);
      return new AppendLog(store, this.length + 1);
    }
    const items = store.items.slice(0, this.length);
    items.push(item);
    return new AppendLog({ items, copied: store.copied + this.length }, this.length + 1);
  }

  /** The item at `index` (from 0) of this version, in O(1). */
  at(index: number): T | undefined {
    return index >= 0 && index < this.length ? this.store.items[index] : undefined;
  }

  /** The newest item of this version, in O(1). */
  last(): T | undefined {
    return this.at(this.length - 1);
  }

  /** This version as a frozen array, built on the first call (O(length), counted) and cached. */
  toArray(): readonly T[] {
    if (this.array === undefined) {
      this.array = Object.freeze(this.store.items.slice(0, this.length));
      this.store.copied += this.length;
    }
    return this.array;
  }

  /** Elements copied so far for this log's backing array (by `of`, branches and `toArray`). */
  get copiedElements(): number {
    return this.store.copied;
  }
}
