import { openRunFile } from './fileOps';
import { type LockSettings, withRunLock } from './runLock';
import type { RunFiles } from './runFiles';
import { readLease } from './sideFiles';

/**
 * Cuts a failed append's `written` bytes back off the journal (whose length was `before` it), when
 * nothing can be lost but stale bytes: under the run's lock (no new lease, so no new holder, meanwhile),
 * only while the append's lease (`token`) is still the run's (or, for an append without one, no lease is
 * held), and only when the journal ends with them (nothing was appended after them).
 */
export async function cutBack(files: RunFiles, lock: LockSettings, token: string | undefined, before: number, written: number): Promise<void> {
  await withRunLock(files.lock, lock, async () => {
    const held = await readLease(files.lease);
    const ours = token === undefined ? held?.token === undefined || held.expiresAt <= lock.scheduler.now() : held?.token === token;
    if (!ours) return;
    const handle = await openRunFile(files.journal, 'r+');
    try {
      if ((await handle.stat()).size === before + written) await handle.truncate(before);
    } finally {
      await handle.close();
    }
  });
}
