import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

// What a user installs: each package asks for the Node version the code needs (the root's), and ships the
// README and CHANGELOG its `files` lists.
const root = resolve(__dirname, '..');
const readJson = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as { engines?: { node?: string }; files?: string[] };
const rootEngines = readJson(join(root, 'package.json')).engines?.node;
const packages = readdirSync(join(root, 'packages')).filter((name) => existsSync(join(root, 'packages', name, 'package.json')));

describe.each(packages)('@rxagents/%s package.json', (name) => {
  const dir = join(root, 'packages', name);
  const manifest = readJson(join(dir, 'package.json'));

  it('declares the same Node engines as the workspace (>=20.19: process.getBuiltinModule)', () => {
    expect(rootEngines).toBe('>=20.19');
    expect(manifest.engines?.node).toBe(rootEngines);
  });

  it('ships a README and a CHANGELOG that exist', () => {
    expect(manifest.files).toEqual(expect.arrayContaining(['dist', 'README.md', 'CHANGELOG.md']));
    for (const file of (manifest.files ?? []).filter((entry) => entry !== 'dist')) expect([file, existsSync(join(dir, file))]).toEqual([file, true]);
  });
});
