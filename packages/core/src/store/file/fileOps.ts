import { type FileHandle, open, readFile, rename, stat, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import { CoordinationError } from '../../errors/CoordinationError';
import { RunStoreError } from '../../errors/RunStoreError';
import { newRunId } from '../../events/ids';

/** The errno code of a Node file-system error, if it has one. */
export function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** Failures that may pass on their own: a full disk or quota, an I/O error, too many open files, a busy file. */
const TRANSIENT = new Set(['ENOSPC', 'EDQUOT', 'EIO', 'EMFILE', 'ENFILE', 'EAGAIN', 'EBUSY']);

/** `error` as the store's error: toolkit errors pass through, file-system errors become `RunStoreError`. */
export function storeFailure(operation: string, runId: string | undefined, error: unknown): CoordinationError {
  if (error instanceof CoordinationError) return error;
  return new RunStoreError(operation, runId, error, TRANSIENT.has(errorCode(error) ?? ''));
}

/** The file's text, or `undefined` when it does not exist. */
export async function readIfExists(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return undefined;
    throw error;
  }
}

/** Removes the file; nothing happens when it does not exist. */
export async function unlinkIfExists(path: string): Promise<void> {
  try {
    await unlink(path);
  } catch (error) {
    if (errorCode(error) !== 'ENOENT') throw error;
  }
}

/**
 * Replaces `path` with `text` atomically: written to a temporary file beside it, then renamed over it,
 * so a reader sees the old text or the new, never part of it. With `sync`, the data and the directory
 * entry reach the disk before it resolves.
 */
export async function writeAtomically(path: string, text: string, sync: boolean): Promise<void> {
  const temporary = `${path}.${newRunId()}.tmp`;
  try {
    const handle = await open(temporary, 'w');
    try {
      await handle.writeFile(text, 'utf8');
      if (sync) await handle.datasync();
    } finally {
      await handle.close();
    }
    await rename(temporary, path);
  } catch (error) {
    await unlinkIfExists(temporary).catch(() => undefined);
    throw error;
  }
  if (sync) await syncDirectory(dirname(path));
}

/** Makes a directory's entries (a file created or renamed in it) survive a power loss. */
export async function syncDirectory(directory: string): Promise<void> {
  const handle = await open(directory, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** The file opened with `flags`, or `undefined` when it does not exist. */
export async function openIfExists(path: string, flags: string | number): Promise<FileHandle | undefined> {
  try {
    return await open(path, flags);
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return undefined;
    throw error;
  }
}

/** Whether something exists at `path`. */
export async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return false;
    throw error;
  }
}
