import type { FileHandle } from 'node:fs/promises';

/** One complete line of a file: its text (without the newline), and the offset just past its newline. */
export interface FileLine {
  readonly text: string;
  readonly end: number;
}

/** A chunk's worth of complete lines, with their bytes (newlines included), so that checksums need no copy. */
export interface LineChunk {
  /** The bytes of `lines`, each with its newline. Valid only until the next chunk is asked for. */
  readonly bytes: Buffer;
  /** The file offset of `bytes[0]`. */
  readonly start: number;
  readonly lines: readonly FileLine[];
  /** On the last chunk only: how many bytes follow the file's last newline (a line without its newline). */
  readonly unfinished: number;
}

/** How much of a file is read at once. */
const CHUNK_BYTES = 64 * 1024;

/** The first window read back from a file's end: a commit line is short, and the window grows when it is not enough. */
const TAIL_BYTES = 4 * 1024;

const NO_BYTES = Buffer.alloc(0);

/**
 * The lines of bytes `from` to `size` of a file, a chunk's worth at a time, so a long journal is never
 * held whole in memory: only one chunk and the line that crosses its end.
 */
export async function* journalLines(handle: FileHandle, from: number, size: number, chunkBytes = CHUNK_BYTES): AsyncGenerator<LineChunk> {
  const chunk = Buffer.allocUnsafe(chunkBytes);
  let position = from;
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  while (position < size) {
    const { bytesRead } = await handle.read(chunk, 0, Math.min(chunkBytes, size - position), position);
    if (bytesRead === 0) break;
    const view = chunk.subarray(0, bytesRead);
    const last = view.lastIndexOf(10);
    if (last === -1) {
      pending.push(Buffer.from(view));
      pendingBytes += bytesRead;
      position += bytesRead;
      continue;
    }
    // The chunk's complete lines decoded at once, then split: a newline byte is never part of a
    // multi-byte character, so the string splits where the bytes do.
    const bytes = pending.length === 0 ? view.subarray(0, last + 1) : Buffer.concat([...pending, view.subarray(0, last + 1)]);
    const start = position - pendingBytes;
    pending = [];
    pendingBytes = 0;
    const texts = bytes.toString('utf8', 0, bytes.length - 1).split('\n');
    const lines: FileLine[] = new Array(texts.length);
    let newline = -1;
    for (let i = 0; i < texts.length; i++) {
      newline = bytes.indexOf(10, newline + 1);
      lines[i] = { text: texts[i] as string, end: start + newline + 1 };
    }
    if (last + 1 < bytesRead) {
      pending.push(Buffer.from(view.subarray(last + 1)));
      pendingBytes = bytesRead - last - 1;
    }
    position += bytesRead;
    yield { bytes, start, lines, unfinished: 0 };
  }
  if (pendingBytes > 0) yield { bytes: NO_BYTES, start: position - pendingBytes, lines: [], unfinished: pendingBytes };
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

/** How much of the start of a file is read at once to find its version line. */
const HEADER_CHUNK_BYTES = 4 * 1024;

/** The first line of the file with the offset after its newline, or `undefined` when it has no newline. */
export async function readFirstLine(handle: FileHandle, size: number): Promise<{ text: string; end: number } | undefined> {
  const parts: Buffer[] = [];
  let position = 0;
  while (position < size) {
    const buffer = Buffer.allocUnsafe(Math.min(HEADER_CHUNK_BYTES, size - position));
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, position);
    if (bytesRead === 0) return undefined;
    const view = buffer.subarray(0, bytesRead);
    const newline = view.indexOf(10);
    if (newline !== -1) {
      parts.push(view.subarray(0, newline));
      return { text: Buffer.concat(parts).toString('utf8'), end: position + newline + 1 };
    }
    parts.push(view);
    position += bytesRead;
  }
  return undefined;
}

/** How many newlines the first `end` bytes of a file hold. */
export async function countLines(handle: FileHandle, end: number): Promise<number> {
  let count = 0;
  for await (const chunk of journalLines(handle, 0, end)) count += chunk.lines.length;
  return count;
}
