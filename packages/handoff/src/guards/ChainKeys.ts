/**
 * Interned keys of handoff chains, for one `Handoff`'s re-entry bookkeeping: equal chains get equal
 * numbers, and a chain extended by one id from a chain already known costs O(1), so a recursion `n`
 * deep costs O(n) in all, not O(n²) (as joining each chain into a string key would). A key remembers its
 * parent (the chain without its last id), so every prefix of a chain is a walk up, with no string work.
 * Frozen arrays are remembered by identity; `clear()` forgets everything (call it when no chain runs).
 */
export class ChainKeys {
  /** `<parent key> <id>` to key; 0 is the empty chain. */
  #interned = new Map<string, number>();
  #nodes = new Map<number, { readonly parent: number; readonly id: string }>();
  #byArray = new WeakMap<readonly string[], number>();
  #next = 1;

  /** The key of `chain` (interning it and its prefixes). */
  keyOf(chain: readonly string[]): number {
    const cached = this.#byArray.get(chain);
    if (cached !== undefined) return cached;
    let key = 0;
    for (const id of chain) key = this.child(key, id);
    this.#remember(chain, key);
    return key;
  }

  /** The key of `path`, known to be `base` extended by its last id. */
  extend(base: readonly string[], path: readonly string[]): number {
    const key = this.child(this.keyOf(base), path[path.length - 1] as string);
    this.#remember(path, key);
    return key;
  }

  /** The key of the chain `parent` extended by `id`. */
  child(parent: number, id: string): number {
    const name = `${parent} ${id}`;
    let key = this.#interned.get(name);
    if (key === undefined) {
      key = this.#next++;
      this.#interned.set(name, key);
      this.#nodes.set(key, { parent, id });
    }
    return key;
  }

  /** The chain `key` without its last id, and that id; undefined for the empty chain. */
  parentOf(key: number): { readonly parent: number; readonly id: string } | undefined {
    return this.#nodes.get(key);
  }

  clear(): void {
    this.#interned = new Map();
    this.#nodes = new Map();
    this.#byArray = new WeakMap();
  }

  #remember(chain: readonly string[], key: number): void {
    // Only a frozen array cannot change under its cached key.
    if (Object.isFrozen(chain)) this.#byArray.set(chain, key);
  }
}
