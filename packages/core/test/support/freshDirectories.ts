import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A fresh temporary directory per call, all of them removed after each test of the calling spec file
 * (it registers the `afterEach`, so call it at the top level of a spec).
 */
export function freshDirectories(prefix: string): () => Promise<string> {
  const directories: string[] = [];
  afterEach(async () => {
    await Promise.all(directories.splice(0).map((directory) => rm(directory, { recursive: true, force: true })));
  });
  return async () => {
    const directory = await mkdtemp(join(tmpdir(), prefix));
    directories.push(directory);
    return directory;
  };
}
