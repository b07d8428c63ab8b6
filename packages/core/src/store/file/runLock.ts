import { link, rename, writeFile } from 'node:fs/promises';
import type { SchedulerLike } from 'rxjs';
import { scheduleDelay } from '../../delay';
import { newRunId } from '../../events/ids';
import { errorCode, readIfExists, unlinkIfExists } from './fileOps';
import { HOST, processIsGone } from './processes';
import { temporaryPath } from './temporaryFiles';

/** How long to wait before trying a lock another process holds again, in ms on the store's clock. */
const RETRY_MS = 5;

/** How a store takes a run's lock. */
export interface LockSettings {
  readonly scheduler: SchedulerLike;
  /** A lock seen unchanged for this long was left by a process that stopped: it is broken. */
  readonly staleLockMs: number;
}

/**
 * Runs `work` holding the lock file `path`, which one process at a time creates.
 *
 * @remarks
 * The lock appears whole or not at all: its text (this process's pid and host, and a token) is written
 * to a temporary file first, which is then hard-linked to the lock's name (`link` fails with `EEXIST`
 * while another process holds it) and removed. A process killed at any point leaves either no lock or a
 * whole one naming it, never an empty lock that could only be judged stale after `staleLockMs`; what it
 * may leave is its temporary file, which names it, and which the next store removes (see
 * `sweepTemporaries`). A lock whose holder is a process of this host that no longer exists is broken at
 * once; any other lock seen unchanged for `staleLockMs` is broken too (a holder keeps it only for a few
 * file operations). Breaking renames the lock away and checks it was the one judged stale, so a lock
 * just taken by a third process is put back.
 */
export async function withRunLock<T>(path: string, settings: LockSettings, work: () => Promise<T>): Promise<T> {
  const mine = JSON.stringify({ pid: process.pid, host: HOST, token: newRunId() });
  let seen: string | undefined;
  let seenSince = 0;
  for (;;) {
    if (await linkLock(path, mine)) break;
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

/** Puts the lock in place with its whole text, or answers `false` when another process holds it. */
async function linkLock(path: string, text: string): Promise<boolean> {
  const temporary = temporaryPath(path);
  try {
    // Written in full before it is linked: a kill before the link leaves only this file, never a lock.
    await writeFile(temporary, text, { flag: 'wx' });
    await link(temporary, path);
    return true;
  } catch (error) {
    if (errorCode(error) === 'EEXIST') return false;
    throw error;
  } finally {
    await unlinkIfExists(temporary);
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
  return processIsGone(holder?.host, holder?.pid);
}

async function breakLock(path: string, stale: string): Promise<void> {
  const moved = temporaryPath(path);
  try {
    await rename(path, moved);
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return;
    throw error;
  }
  try {
    if ((await readIfExists(moved)) !== stale) {
      // Another process took the lock after it was judged stale: give it back.
      await link(moved, path).catch(() => undefined);
    }
  } finally {
    await unlinkIfExists(moved);
  }
}
