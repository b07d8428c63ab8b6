// Regenerates the "Unreleased" section of every package's CHANGELOG.md from .changeset/.
// Run after adding a changeset and after `pnpm changeset version`: npx tsx scripts/update-changelogs.ts
import { writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { changelogUpdates } from './unreleasedChangelog';

const root = fileURLToPath(new URL('..', import.meta.url));
for (const { path, current, expected } of changelogUpdates(root)) {
  if (current === expected) continue;
  writeFileSync(path, expected);
  console.log(`updated ${relative(root, path)}`);
}
