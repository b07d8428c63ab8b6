/**
 * `text` cut into pieces of at most `max` characters, never between the two halves of a surrogate pair
 * (a piece may then hold one character less), so every piece is well-formed and their concatenation is
 * `text`.
 */
export function splitText(text: string, max: number): string[] {
  const pieces: string[] = [];
  let start = 0;
  while (text.length - start > max) {
    let end = start + max;
    const last = text.charCodeAt(end - 1);
    if (last >= 0xd800 && last <= 0xdbff) end--;
    pieces.push(text.slice(start, end));
    start = end;
  }
  pieces.push(text.slice(start));
  return pieces;
}

/** Whether `text`, written as a JSON string (without its quotes), holds at most `max` characters. */
export function fitsAsJson(text: string, max: number): boolean {
  // JSON writes a character as at most 6 (`\u0000`): only the lengths in between need measuring.
  if (text.length > max) return false;
  if (text.length * 6 <= max) return true;
  return JSON.stringify(text).length - 2 <= max;
}
