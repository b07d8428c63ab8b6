// Regenerates the "Unreleased" section of every package's CHANGELOG.md from .changeset/.
// Run after adding a changeset and after `pnpm changeset version`: npx tsx scripts/update-changelogs.ts
import { writeFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { changelogUpdates } from './unreleasedChangelog';

const root = resolve(__dirname, '..');
for (const { path, current, expected } of changelogUpdates(root)) {
  if (current === expected) continue;
  writeFileSync(path, expected);
  console.log(`updated ${relative(root, path)}`);
}
