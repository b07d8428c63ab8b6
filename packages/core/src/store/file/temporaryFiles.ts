import { createHash } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { newRunId } from '../../events/ids';
import { HOST, processIsGone } from './processes';

// The temporary files a store writes beside a run's files (a lock before it is linked into place, a
// lease or expire file before it is renamed over the old one, a lock being broken) carry their writer's
// host and pid in their name: a process killed before it removed one leaves it behind, and the next
// store that opens the directory removes those whose writer is a process of its host that has exited.

/** This host's name as a file name can hold it. */
const HOST_TAG = createHash('sha256').update(HOST).digest('hex').slice(0, 12);

/** A temporary file's name: the file it stands in for, its writer's host tag and pid, a random part. */
const TEMPORARY = /\.([0-9a-f]{12})-(\d+)-[0-9a-f-]{36}\.tmp$/;

/** A fresh name for a temporary file beside `path`. */
export function temporaryPath(path: string): string {
  return `${path}.${HOST_TAG}-${process.pid}-${newRunId()}.tmp`;
}

/** Removes the temporary files in `directory` that exited processes of this host left behind. */
export async function sweepTemporaries(directory: string, remove: (path: string) => Promise<void>): Promise<void> {
  for (const name of await readdir(directory)) {
    const parts = TEMPORARY.exec(name);
    if (parts !== null && parts[1] === HOST_TAG && processIsGone(HOST, Number(parts[2]))) await remove(join(directory, name));
  }
}
