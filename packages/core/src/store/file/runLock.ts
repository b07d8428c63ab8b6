import { link, readFile, rename, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import type { SchedulerLike } from 'rxjs';
import { scheduleDelay } from '../../delay';
import { newRunId } from '../../events/ids';
import { errorCode, readIfExists, unlinkIfExists } from './fileOps';

/** How long to wait before trying a lock another process holds again, in ms on the store's clock. */
const RETRY_MS = 5;

/** How a store takes a run's lock. */
export interface LockSettings {
  readonly scheduler: SchedulerLike;
  /** A lock seen unchanged for this long was left by a process that stopped: it is broken. */
  readonly staleLockMs: number;
}

const host = hostname();

/**
 * Runs `work` holding the lock file `path`, which one process at a time creates (`open` with `wx`).
 *
 * @remarks
 * A lock whose holder is a process of this host that no longer exists is broken at once; any other lock
 * seen unchanged for `staleLockMs` is broken too (a holder keeps it only for a few file operations).
 * Breaking renames the lock away and checks it was the one judged stale, so a lock just taken by a
 * third process is put back.
 */
export async function withRunLock<T>(path: string, settings: LockSettings, work: () => Promise<T>): Promise<T> {
  const mine = JSON.stringify({ pid: process.pid, host, token: newRunId() });
  let seen: string | undefined;
  let seenSince = 0;
  for (;;) {
    try {
      await writeFile(path, mine, { flag: 'wx' });
      break;
    } catch (error) {
      if (errorCode(error) !== 'EEXIST') throw error;
    }
    const held = await readIfExists(path);
    if (held === undefined) continue;
    const now = settings.scheduler.now();
    if (held !== seen) {
      seen = held;
      seenSince = now;
    }
    if (holderIsGone(held) || now - seenSince >= settings.staleLockMs) await breakLock(path, held);
    else await new Promise<void>((resolve) => scheduleDelay(settings.scheduler, RETRY_MS, resolve));
  }
  try {
    return await work();
  } finally {
    if ((await readIfExists(path).catch(() => undefined)) === mine) await unlinkIfExists(path);
  }
}

/** Whether the lock names a process of this host that has exited. */
function holderIsGone(held: string): boolean {
  let holder: { pid?: unknown; host?: unknown };
  try {
    holder = JSON.parse(held) as typeof holder;
  } catch {
    return false;
  }
  if (holder?.host !== host || typeof holder.pid !== 'number' || holder.pid === process.pid) return false;
  try {
    process.kill(holder.pid, 0);
    return false;
  } catch (error) {
    return errorCode(error) === 'ESRCH';
  }
}

async function breakLock(path: string, stale: string): Promise<void> {
  const moved = `${path}.${newRunId()}.stale`;
  try {
    await rename(path, moved);
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return;
    throw error;
  }
  try {
    if ((await readFile(moved, 'utf8')) !== stale) {
      // Another process took the lock after it was judged stale: give it back.
      await link(moved, path).catch(() => undefined);
    }
  } finally {
    await unlinkIfExists(moved);
  }
}
