import type { FileHandle } from 'node:fs/promises';
import { syncDirectory } from './fileOps';

/** How one append reaches the file. */
export interface AppendWrite {
  /** The journal, opened in append mode: each write lands at the file's end, never over other bytes. */
  readonly handle: FileHandle;
  /** Every line of the append, as one buffer. */
  readonly bytes: Buffer;
  /** Whether to wait for the data (and, for a new file, its directory entry) to reach the disk. */
  readonly sync: boolean;
  /** The directory to sync when the file is new. */
  readonly directory: string | undefined;
  /** Called when the append failed after `written` of its bytes reached the file: cuts them back if it safely can. */
  readonly cutBack: (written: number) => Promise<void>;
}

/**
 * Writes one append at the file's end, as one buffer (in as many writes as the OS takes). When it fails
 * part way (a full disk), its bytes are cut back where that is safe, and in any case end without their
 * commit line, which readers drop.
 */
export async function writeAppend({ handle, bytes, sync, directory, cutBack }: AppendWrite): Promise<void> {
  let written = 0;
  try {
    while (written < bytes.length) {
      const { bytesWritten } = await handle.write(bytes, written, bytes.length - written, null);
      written += bytesWritten;
    }
    if (sync) {
      await handle.datasync();
      if (directory !== undefined) await syncDirectory(directory);
    }
  } catch (error) {
    if (written > 0) await cutBack(written).catch(() => undefined);
    throw error;
  }
}
