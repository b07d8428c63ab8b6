import type { FileHandle } from 'node:fs/promises';
import type { RunStatus } from '../RunStore';
import { type JournalHeader, parseHeader, parseRecordLine } from './journalFormat';
import { walkLinesBackwards } from './journalLines';

/** What a journal holds, read from its version line and its last committed line only. */
export interface JournalState {
  readonly header: JournalHeader;
  /** How many records are committed. */
  readonly records: number;
  readonly status: RunStatus;
  /** When the last committed append was made. */
  readonly updatedAt: number;
  /** The byte offset just past the last committed line: what follows it is a torn append. */
  readonly end: number;
}

/** How much of the start of a file is read at once to find its version line. */
const HEADER_CHUNK_BYTES = 4 * 1024;

/**
 * Reads a journal's version line and walks back from its end to its last committed line, without
 * reading the records between. `undefined` when it holds no committed record (an empty file, or a first
 * append a crash cut short). Throws `RunJournalVersionError` for a journal of another version.
 */
export async function inspectJournal(handle: FileHandle, size: number, file: string): Promise<JournalState | undefined> {
  const first = await readFirstLine(handle, size);
  if (first === undefined) return undefined;
  const header = parseHeader(first.text, file);
  let state: JournalState | undefined;
  await walkLinesBackwards(handle, first.end, size, (text, end) => {
    const parsed = parseRecordLine(text);
    if (!parsed.ok || parsed.commit === undefined) return false;
    state = { header, records: parsed.seq + 1, status: parsed.commit.status, updatedAt: parsed.commit.appendedAt, end };
    return true;
  });
  return state;
}

/** The first line of the file with the offset after its newline, or `undefined` when it has no newline. */
async function readFirstLine(handle: FileHandle, size: number): Promise<{ text: string; end: number } | undefined> {
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
