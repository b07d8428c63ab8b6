import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

// Each package's CHANGELOG.md opens with an "Unreleased" section generated from the pending changesets
// in .changeset/ (what `pnpm changeset status --verbose` lists). `pnpm changeset version` inserts each
// released version right under the title line and deletes the changesets it used; running
// scripts/update-changelogs.ts then drops what was released from "Unreleased" (and the section itself
// when nothing is pending), so "Unreleased" always stays on top.

/** One pending changeset. */
export interface PendingChangeset {
  /** File name without `.md`. */
  readonly id: string;
  /** Package name -> bump (`major`, `minor`, `patch`). */
  readonly releases: ReadonlyMap<string, string>;
  readonly summary: string;
}

export const UNRELEASED_START = '<!-- unreleased:start (generated from .changeset/ by scripts/update-changelogs.ts: edit the changesets, not this section) -->';
export const UNRELEASED_END = '<!-- unreleased:end -->';
const BUMPS = ['major', 'minor', 'patch'] as const;
const HEADINGS: Record<(typeof BUMPS)[number], string> = { major: 'Major Changes', minor: 'Minor Changes', patch: 'Patch Changes' };

/** A changeset whose summary starts with "Migration" is listed under "### Migration" instead. */
const isMigration = (changeset: PendingChangeset): boolean => /^migration\b/i.test(changeset.summary);

export function readPendingChangesets(root: string): PendingChangeset[] {
  const dir = join(root, '.changeset');
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => name.endsWith('.md') && name !== 'README.md')
    .sort()
    .map((name) => {
      const text = readFileSync(join(dir, name), 'utf8').replace(/\r\n/g, '\n');
      const match = /^---\n([\s\S]*?)\n?---\n([\s\S]*)$/.exec(text);
      if (match === null) throw new Error(`.changeset/${name}: no frontmatter`);
      const releases = new Map<string, string>();
      for (const line of match[1]!.split('\n')) {
        const release = /^\s*["']?([^"':]+)["']?\s*:\s*(major|minor|patch)\s*$/.exec(line);
        if (release) releases.set(release[1]!, release[2]!);
      }
      return { id: name.slice(0, -'.md'.length), releases, summary: match[2]!.trim() };
    });
}

const indent = (text: string): string =>
  text
    .split('\n')
    .map((line, index) => (index === 0 || line === '' ? line : `  ${line}`))
    .join('\n');

/** The generated section for one package, or `''` when nothing is pending for it. */
export function renderUnreleased(packageName: string, changesets: readonly PendingChangeset[]): string {
  const mine = changesets.filter((changeset) => changeset.releases.has(packageName));
  if (mine.length === 0) return '';
  const parts = [UNRELEASED_START, '## Unreleased', '', 'Pending changes (`pnpm changeset status --verbose`); the next `pnpm changeset version` releases them.'];
  for (const bump of BUMPS) {
    const entries = mine.filter((changeset) => changeset.releases.get(packageName) === bump && !isMigration(changeset));
    if (entries.length === 0) continue;
    parts.push('', `### ${HEADINGS[bump]}`, '', ...entries.map((changeset) => `- ${indent(changeset.summary)}`));
  }
  const migrations = mine.filter(isMigration);
  if (migrations.length > 0) {
    parts.push('', '### Migration', '');
    // "Migration from 0.1 (...):" is shown as "From 0.1 (...):" under the heading.
    const lead = (summary: string): string => summary.replace(/^migration\s*(\S)/i, (_whole, first: string) => first.toUpperCase());
    parts.push(migrations.map((changeset) => lead(changeset.summary)).join('\n\n'));
  }
  parts.push(UNRELEASED_END);
  return parts.join('\n');
}

/** `current` (a CHANGELOG.md's text, `''` for none) with its Unreleased section replaced by `section`. */
export function withUnreleased(current: string, packageName: string, section: string): string {
  let text = current.replace(/\r\n/g, '\n');
  const start = text.indexOf(UNRELEASED_START);
  const end = text.indexOf(UNRELEASED_END);
  if (start !== -1 && end > start) text = text.slice(0, start) + text.slice(end + UNRELEASED_END.length).replace(/^\n+/, '');
  if (text.trim() === '') text = `# ${packageName}\n`;
  const newline = text.indexOf('\n');
  const title = newline === -1 ? text : text.slice(0, newline);
  const rest = (newline === -1 ? '' : text.slice(newline + 1)).replace(/^\n+/, '');
  return [title, '', ...(section === '' ? [] : [section, '']), rest].join('\n').replace(/\n+$/, '\n');
}

/** For every package: its CHANGELOG.md path, its text today and the text it should have. */
export function changelogUpdates(root: string): { path: string; current: string; expected: string }[] {
  const changesets = readPendingChangesets(root);
  return readdirSync(join(root, 'packages'))
    .sort()
    .filter((dir) => existsSync(join(root, 'packages', dir, 'package.json')))
    .map((dir) => {
      const name = (JSON.parse(readFileSync(join(root, 'packages', dir, 'package.json'), 'utf8')) as { name: string }).name;
      const path = join(root, 'packages', dir, 'CHANGELOG.md');
      const current = existsSync(path) ? readFileSync(path, 'utf8') : '';
      return { path, current, expected: withUnreleased(current, name, renderUnreleased(name, changesets)) };
    });
}
