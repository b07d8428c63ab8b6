import { relative, resolve } from 'node:path';
import { changelogUpdates, readPendingChangesets, renderUnreleased, withUnreleased } from '../scripts/unreleasedChangelog';

// Every package has a CHANGELOG.md whose "Unreleased" section lists exactly what the pending changesets
// say, and `pnpm changeset version` (which inserts each release under the title line) keeps it sensible.
const root = resolve(__dirname, '..');

describe('package changelogs', () => {
  it.each(changelogUpdates(root).map((update) => [relative(root, update.path), update] as const))(
    '%s is up to date with .changeset/ (run: npx tsx scripts/update-changelogs.ts)',
    (_path, update) => {
      expect(update.current).toBe(update.expected);
    },
  );

  it('every package with a pending breaking (major, or minor before 1.0) change has a Migration entry', () => {
    const changesets = readPendingChangesets(root);
    const names = changelogUpdates(root).map((update) => /^# (\S+)/.exec(update.expected)?.[1] ?? update.path);
    const breaking = (name: string) => changesets.some((changeset) => ['major', 'minor'].includes(changeset.releases.get(name) ?? ''));
    const hasMigration = (name: string) => changesets.some((changeset) => changeset.releases.has(name) && /^migration\b/i.test(changeset.summary));
    expect(names.filter((name) => breaking(name) && !hasMigration(name))).toEqual([]);
  });

  it('keeps Unreleased on top after a release is inserted under the title, and drops it when nothing is pending', () => {
    const pending = [{ id: 'a', releases: new Map([['@x/y', 'minor']]), summary: 'Migration from 0.1:\n\n- rename `a` to `b`.' }];
    const before = withUnreleased('# @x/y\n\n## 0.1.0\n\n- First.\n', '@x/y', renderUnreleased('@x/y', pending));
    expect(before).toMatch(/^# @x\/y\n\n<!-- unreleased:start[^\n]*\n## Unreleased\n[\s\S]*### Migration\n\nFrom 0\.1:\n\n- rename `a` to `b`\.\n<!-- unreleased:end -->\n\n## 0\.1\.0\n/);
    // What `changeset version` does: the new version right after the title's line break.
    const released = before.replace('\n', '\n\n## 0.2.0\n\n### Minor Changes\n\n- abc1234: Migration from 0.1:\n');
    expect(withUnreleased(released, '@x/y', '')).toBe('# @x/y\n\n## 0.2.0\n\n### Minor Changes\n\n- abc1234: Migration from 0.1:\n\n## 0.1.0\n\n- First.\n');
  });
});
