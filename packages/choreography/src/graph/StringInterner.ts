/** Longest probe sequence tolerated before the interner gives up on its table and uses a `Map`. */
const MAX_PROBES = 32;

/**
 * FNV-1a over the UTF-16 code units of `text`, then MurmurHash3's 32-bit finaliser so that ids
 * differing only in their last characters (`a1`, `a2`, ...) spread over the whole table.
 *
 * @internal
 */
export function hashString(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  hash = Math.imul(hash ^ (hash >>> 16), 0x85ebca6b);
  hash = Math.imul(hash ^ (hash >>> 13), 0xc2b2ae35);
  return hash ^ (hash >>> 16);
}

/**
 * Numbers string ids 0, 1, 2, ... in order of first appearance, with an open-addressing table in
 * typed arrays.
 *
 * @remarks
 * Internal to {@link DeadlockDetector}, where looking ids up was the largest cost on large graphs: a
 * `Map<string, number>` of 100,000 entries is several megabytes of scattered memory, and a hit
 * usually compares the key against other entries' strings first. Here a slot holds `index + 1`
 * (0 for empty) and each index's hash sits in a parallel `Int32Array`, so a lookup touches the key,
 * a few contiguous slots and, only on a hash match, the stored string. Linear probing, load at most
 * one half, doubling without re-reading any string.
 *
 * The hash is not keyed, so ids could be crafted to collide: if any lookup probes more than
 * `MAX_PROBES` slots, the interner moves every id to a `Map` and uses it from then on. The result is
 * the same either way; only the speed differs.
 *
 * @internal
 */
export class StringInterner {
  /** The ids, by index, in an array sized up front (holes past `#size`): pushing one by one costs more. */
  readonly #names: string[];
  #size = 0;
  #hashes: Int32Array;
  #slots: Int32Array;
  #mask: number;
  #fallback: Map<string, number> | undefined;

  /** `expected`: about how many distinct ids to make room for (the table still grows past it). */
  constructor(expected = 8) {
    let capacity = 16;
    while (capacity < expected * 2) capacity *= 2;
    this.#slots = new Int32Array(capacity);
    this.#mask = capacity - 1;
    this.#hashes = new Int32Array(capacity >>> 1);
    this.#names = new Array<string>(capacity >>> 1);
  }

  /** How many distinct ids were seen. */
  get size(): number {
    return this.#size;
  }

  /** The id numbered `index`. */
  name(index: number): string {
    return this.#names[index] as string;
  }

  /** Whether colliding ids made the interner fall back to a `Map`. */
  get usesMap(): boolean {
    return this.#fallback !== undefined;
  }

  /** The index of `name`, numbering it when it is new. */
  intern(name: string): number {
    if (this.#fallback !== undefined) return this.#internInMap(this.#fallback, name);
    const hash = hashString(name);
    const slots = this.#slots;
    const hashes = this.#hashes;
    const mask = this.#mask;
    let slot = hash & mask;
    for (let probes = 0; probes < MAX_PROBES; probes += 1) {
      const entry = slots[slot] as number;
      if (entry === 0) return this.#add(name, hash, slot);
      if (hashes[entry - 1] === hash && this.#names[entry - 1] === name) return entry - 1;
      slot = (slot + 1) & mask;
    }
    const fallback = new Map<string, number>();
    for (let index = 0; index < this.#size; index += 1) fallback.set(this.#names[index] as string, index);
    this.#fallback = fallback;
    return this.#internInMap(this.#fallback, name);
  }

  #internInMap(map: Map<string, number>, name: string): number {
    let index = map.get(name);
    if (index === undefined) {
      index = this.#size;
      map.set(name, index);
      this.#names[index] = name;
      this.#size = index + 1;
    }
    return index;
  }

  #add(name: string, hash: number, slot: number): number {
    const index = this.#size;
    this.#names[index] = name;
    this.#size = index + 1;
    this.#hashes[index] = hash;
    this.#slots[slot] = index + 1;
    if (this.#size === this.#hashes.length) this.#grow();
    return index;
  }

  /** Doubles the table (called when it is half full), placing every index again by its stored hash. */
  #grow(): void {
    const capacity = this.#slots.length * 2;
    const slots = new Int32Array(capacity);
    const mask = capacity - 1;
    const hashes = new Int32Array(capacity >>> 1);
    hashes.set(this.#hashes);
    for (let index = 0; index < this.#size; index += 1) {
      let slot = (hashes[index] as number) & mask;
      while (slots[slot] !== 0) slot = (slot + 1) & mask;
      slots[slot] = index + 1;
    }
    this.#slots = slots;
    this.#mask = mask;
    this.#hashes = hashes;
  }
}
