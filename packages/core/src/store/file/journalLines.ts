import type { FileHandle } from 'node:fs/promises';

/** One line of a file: its text (without the newline), and the offset just past it. */
export interface FileLine {
  readonly text: string;
  /** The byte offset after the line's newline (after its last byte when it has none). */
  readonly end: number;
  /** Whether the line ends with a newline. */
  readonly complete: boolean;
}

/** How much of a file is read at once. */
const CHUNK_BYTES = 64 * 1024;

/** The first window read back from a file's end: a commit line is short, and the window grows when it is not enough. */
const TAIL_BYTES = 4 * 1024;

/**
 * The lines of the bytes `start` (the start of a line) to `size` of a file, a chunk's worth at a time, so
 * a long journal is never held whole in memory: only one chunk and the line that crosses its end.
 */
export async function* journalLines(handle: FileHandle, size: number, start = 0): AsyncGenerator<readonly FileLine[]> {
  const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
  let position = start;
  let pending: Buffer[] = [];
  while (position < size) {
    const { bytesRead } = await handle.read(chunk, 0, Math.min(CHUNK_BYTES, size - position), position);
    if (bytesRead === 0) break;
    const view = chunk.subarray(0, bytesRead);
    const last = view.lastIndexOf(10);
    if (last === -1) {
      pending.push(Buffer.from(view));
      position += bytesRead;
      continue;
    }
    // The chunk's complete lines decoded at once, then split: a newline byte is never part of a
    // multi-byte character, so the string splits where the bytes do.
    const head = pending.length === 0 ? view.subarray(0, last) : Buffer.concat([...pending, view.subarray(0, last)]);
    const headStart = position - (head.length - last);
    pending = [];
    const texts = head.toString('utf8').split('\n');
    const lines: FileLine[] = new Array(texts.length);
    let newline = -1;
    for (let i = 0; i < texts.length; i++) {
      newline = head.indexOf(10, newline + 1);
      const end = newline === -1 ? position + last + 1 : headStart + newline + 1;
      lines[i] = { text: texts[i] as string, end, complete: true };
    }
    if (last + 1 < bytesRead) pending.push(Buffer.from(view.subarray(last + 1)));
    position += bytesRead;
    yield lines;
  }
  if (pending.length > 0) yield [{ text: Buffer.concat(pending).toString('utf8'), end: position, complete: false }];
}

/**
 * The complete lines of bytes `from` to `size` of a file, last first, read backwards a growing window
 * at a time: `visit` returns `true` to stop. The bytes after the last newline (a line without its
 * newline) are skipped. Returns whether `visit` stopped the walk.
 */
export async function walkLinesBackwards(handle: FileHandle, from: number, size: number, visit: (text: string, end: number) => boolean): Promise<boolean> {
  let window = TAIL_BYTES;
  // The end of the region whose lines were already visited: lines ending after it are not visited twice.
  let visitedFrom = size;
  for (;;) {
    const start = Math.max(from, size - window);
    const length = size - start;
    const buffer = Buffer.allocUnsafe(length);
    let read = 0;
    while (read < length) {
      const { bytesRead } = await handle.read(buffer, read, length - read, start + read);
      if (bytesRead === 0) break;
      read += bytesRead;
    }
    const view = buffer.subarray(0, read);
    let lineEnd = view.lastIndexOf(10);
    while (lineEnd !== -1) {
      const previous = lineEnd === 0 ? -1 : view.lastIndexOf(10, lineEnd - 1);
      if (previous === -1 && start !== from) break;
      const end = start + lineEnd + 1;
      if (end <= visitedFrom) {
        if (visit(view.toString('utf8', previous + 1, lineEnd), end)) return true;
        visitedFrom = start + previous + 1;
      }
      lineEnd = previous;
    }
    if (start === from) return false;
    window *= 4;
  }
}
