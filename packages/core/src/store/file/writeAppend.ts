import type { FileHandle } from 'node:fs/promises';
import { syncDirectory } from './fileOps';

/** How one append reaches the file. */
export interface AppendWrite {
  /** The journal, opened for writing. */
  readonly handle: FileHandle;
  /** The file's length now. */
  readonly size: number;
  /** Where the append goes: the end of the last committed line (what follows it is a torn end, dropped first). */
  readonly start: number;
  /** Every line of the append, as one buffer. */
  readonly bytes: Buffer;
  /** Whether to wait for the data (and, for a new file, its directory entry) to reach the disk. */
  readonly sync: boolean;
  /** The directory to sync when the file is new. */
  readonly directory: string | undefined;
}

/**
 * Writes one append, all or none: the file is cut back to `start` (dropping a torn end), the lines are
 * written as one buffer (in as many writes as the OS takes), and when a write fails part way (a full
 * disk) the file is cut back to `start` again before the error is thrown, so none of it stays.
 */
export async function writeAppend({ handle, size, start, bytes, sync, directory }: AppendWrite): Promise<void> {
  if (size > start) await handle.truncate(start);
  let written = 0;
  try {
    while (written < bytes.length) {
      const { bytesWritten } = await handle.write(bytes, written, bytes.length - written, start + written);
      written += bytesWritten;
    }
    if (sync) {
      await handle.datasync();
      if (directory !== undefined) await syncDirectory(directory);
    }
  } catch (error) {
    // Even if cutting back fails, the append's last line (its commit) is incomplete: readers drop it.
    if (written > 0) await handle.truncate(start).catch(() => undefined);
    throw error;
  }
}
