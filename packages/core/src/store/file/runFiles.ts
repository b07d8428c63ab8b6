import { createHash } from 'node:crypto';
import { join } from 'node:path';

/** The files of one run in a file store's directory. */
export interface RunFiles {
  /** The file name every other name starts with (`r-...` or `h-...`). */
  readonly base: string;
  /** The JSON-lines journal. */
  readonly journal: string;
  /** The lease (token, epoch, expiry, holder), replaced atomically, kept after a release for its epoch. */
  readonly lease: string;
  /** The lock taken around a read-modify-write of the lease, linked into place whole. */
  readonly lock: string;
  /** When the run is deleted (`{ deleteAt }`), replaced atomically. */
  readonly expire: string;
}

/** Journal files among a directory's entries. */
export const JOURNAL_FILE = /^[rh]-[a-z0-9_-]+\.jsonl$/;

/** The longest escaped id kept readable in a file name; longer ids are named by their hash. */
const MAX_ESCAPED_LENGTH = 150;

const encoder = new TextEncoder();

/**
 * The file name of a run id: `r-` and the id with every UTF-8 byte outside `[a-z0-9-]` written as `_`
 * and two hex digits (so no id can name a path outside the directory, no two ids share a name, and a
 * case-insensitive file system cannot fold two names together), or `h-` and the SHA-256 of the id
 * when that is longer than {@link MAX_ESCAPED_LENGTH}.
 */
export function baseName(runId: string): string {
  let escaped = 'r-';
  for (const byte of encoder.encode(runId)) {
    const kept = (byte >= 0x61 && byte <= 0x7a) || (byte >= 0x30 && byte <= 0x39) || byte === 0x2d;
    escaped += kept ? String.fromCharCode(byte) : `_${byte.toString(16).padStart(2, '0')}`;
    if (escaped.length > MAX_ESCAPED_LENGTH + 2) return `h-${createHash('sha256').update(runId).digest('hex')}`;
  }
  return escaped;
}

/** The files of the run whose base name is `base`. */
export function filesOf(directory: string, base: string): RunFiles {
  return {
    base,
    journal: join(directory, `${base}.jsonl`),
    lease: join(directory, `${base}.lease`),
    lock: join(directory, `${base}.lock`),
    expire: join(directory, `${base}.expire`),
  };
}

/** The files of `runId`. */
export function runFiles(directory: string, runId: string): RunFiles {
  return filesOf(directory, baseName(runId));
}
