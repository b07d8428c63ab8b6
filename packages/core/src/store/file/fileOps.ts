import { constants } from 'node:fs';
import { type FileHandle, lstat, open, rename, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import { CoordinationError } from '../../errors/CoordinationError';
import { RunStoreError } from '../../errors/RunStoreError';
import { temporaryPath } from './temporaryFiles';

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

/** `open`'s flags by their short names, as the store uses them. */
const FLAGS = new Map<string, number>([
  ['r', constants.O_RDONLY],
  ['r+', constants.O_RDWR],
  ['w', constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC],
  ['wx', constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL],
  ['a', constants.O_WRONLY | constants.O_CREAT | constants.O_APPEND],
  ['a+', constants.O_RDWR | constants.O_CREAT | constants.O_APPEND],
]);

/** Refuses to open a symbolic link, and a FIFO without blocking on it (so that it can be refused too). */
const GUARDS = (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

/** The error of a run file that is not a regular file: the store never follows it nor writes through it. */
function notARegularFile(path: string, what: string): Error {
  return Object.assign(new Error(`the run file ${path} is ${what}, not a file the store created: the store neither reads nor writes it (it is left as it is)`), { code: 'ENOTREGULAR' });
}

/**
 * Opens one of a run's files, never through a symbolic link (`O_NOFOLLOW`) and only when it is a
 * regular file: a link planted where a run file belongs, to a file outside the store's directory or
 * anywhere else, is refused with an error naming it, and its target is left untouched. Every run file
 * (journal, lease, expire time, lock) is opened through it.
 */
export async function openRunFile(path: string, flags: string | number): Promise<FileHandle> {
  const mode = typeof flags === 'number' ? flags : FLAGS.get(flags);
  if (mode === undefined) throw new Error(`unknown open flags ${flags}`);
  let handle: FileHandle;
  try {
    handle = await open(path, mode | GUARDS, 0o666);
  } catch (error) {
    if (errorCode(error) === 'ELOOP') throw notARegularFile(path, 'a symbolic link');
    throw error;
  }
  try {
    if (!(await handle.stat()).isFile()) throw notARegularFile(path, 'not a regular file');
  } catch (error) {
    await handle.close();
    throw error;
  }
  return handle;
}

/** The file's text, or `undefined` when it does not exist (read through {@link openRunFile}). */
export async function readIfExists(path: string): Promise<string | undefined> {
  const handle = await openIfExists(path, 'r');
  if (handle === undefined) return undefined;
  try {
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
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
  const temporary = temporaryPath(path);
  try {
    const handle = await open(temporary, 'wx');
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

/** The file opened with `flags` through {@link openRunFile}, or `undefined` when it does not exist. */
export async function openIfExists(path: string, flags: string | number): Promise<FileHandle | undefined> {
  try {
    return await openRunFile(path, flags);
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return undefined;
    throw error;
  }
}

/** Whether something exists at `path` (a symbolic link counts, whatever it points to: it is never followed). */
export async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return false;
    throw error;
  }
}
