import { spawnSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

// A full disk needs a file system of its own: a small tmpfs, which only root may mount. (A symbolic link
// to /dev/full no longer stands in for one: the file store refuses a run file that is a link.)

/** Whether this process may mount a tmpfs (it runs as root, with `mount` on the PATH). */
export const canMountTmpfs = process.getuid?.() === 0 && spawnSync('mount', ['--version']).status === 0;

/** `it` where a tmpfs can be mounted, `it.skip` elsewhere. */
export const itOnTmpfs = canMountTmpfs ? it : it.skip;

/**
 * Runs `use` with a directory `disk` under `parent` on a 64 KiB tmpfs that is full (every write to it
 * fails with `ENOSPC`) once `fill()` is called, unmounted after `use`.
 */
export async function onSmallDisk(parent: string, use: (directory: string, fill: () => Promise<void>) => Promise<void>): Promise<void> {
  const directory = join(parent, 'disk');
  await mkdir(directory);
  const mount = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', directory], { encoding: 'utf8' });
  if (mount.status !== 0) throw new Error(`cannot mount a tmpfs: ${mount.stderr}`);
  try {
    await use(directory, () => writeFile(join(directory, 'filler'), Buffer.alloc(256 * 1024)).catch(() => undefined));
  } finally {
    spawnSync('umount', [directory]);
  }
}
