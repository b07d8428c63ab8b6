import { hostname } from 'node:os';

/** This process's host name, recorded with every lock and lease it takes. */
export const HOST = hostname();

/**
 * Whether `pid` on `host` names a process that has exited: only a process of this host can be asked
 * (`kill(pid, 0)` answers `ESRCH` for none), and this process is never gone. A process of another host,
 * or one this process may not signal (`EPERM`: it exists), counts as alive.
 */
export function processIsGone(host: unknown, pid: unknown): boolean {
  if (host !== HOST || typeof pid !== 'number' || !Number.isInteger(pid) || pid <= 0 || pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as { code?: unknown } | null)?.code === 'ESRCH';
  }
}
