/**
 * Whether two strings are equal, in a time that depends on their lengths only, not on where they first
 * differ: comparing a secret (a run id an answer names) this way tells a guesser nothing about a prefix.
 */
export function sameText(a: string, b: string): boolean {
  const length = Math.max(a.length, b.length);
  let difference = a.length ^ b.length;
  // Past the end of the shorter one, `charCodeAt` gives NaN, which `| 0` makes 0: the loop still runs.
  for (let i = 0; i < length; i++) difference |= (a.charCodeAt(i) | 0) ^ (b.charCodeAt(i) | 0);
  return difference === 0;
}
