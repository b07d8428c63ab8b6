/**
 * Runs `run` and counts how many times an array of at least `minLength` elements was iterated (spread,
 * for-of, Array.from) or sliced meanwhile: how a test sees code copy a growing list (a transcript, the
 * nodes of a run view) at each step instead of sharing it.
 */
export function countLargeArrayCopies(minLength: number, run: () => void): number {
  const proto = Array.prototype as unknown as Record<PropertyKey, unknown>;
  const values = proto[Symbol.iterator] as (this: unknown[]) => Iterator<unknown>;
  const slice = proto['slice'] as (this: unknown[], ...args: unknown[]) => unknown[];
  let copies = 0;
  proto[Symbol.iterator] = function (this: unknown[]) {
    if (this.length >= minLength) copies += 1;
    return values.call(this);
  };
  proto['slice'] = function (this: unknown[], ...args: unknown[]) {
    if (this.length >= minLength) copies += 1;
    return slice.apply(this, args);
  };
  try {
    run();
  } finally {
    proto[Symbol.iterator] = values;
    proto['slice'] = slice;
  }
  return copies;
}
