import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

/** One ```ts code block found in a guide, a README or a TSDoc comment. */
export interface DocBlock {
  /** Path relative to the repository root. */
  readonly file: string;
  /** 1-based line of the opening fence. */
  readonly line: number;
  readonly code: string;
  /**
   * Why the block is type-checked but not executed, when it carries a no-run marker: in Markdown an
   * HTML comment `<!-- no-run: why -->` on the last non-blank line before the fence, in TSDoc a first
   * line `// no-run: why` inside the block. `''` when the marker gives no reason (a test refuses that).
   */
  readonly noRun?: string;
}

const MARKDOWN_NO_RUN = /^<!--\s*no-run:?(.*?)-->$/;
const CODE_NO_RUN = /^\/\/\s*no-run:?(.*)$/;

const FENCE_OPEN = /^```(ts|typescript)(\s+(\S+))?\s*$/;

function walk(dir: string, accept: (path: string) => boolean, out: string[] = []): string[] {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return out;
  }
  for (const entry of entries) {
    if (entry === 'node_modules' || entry === 'dist' || entry.startsWith('.')) continue;
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) walk(path, accept, out);
    else if (accept(path)) out.push(path);
  }
  return out;
}

/**
 * Extracts ```ts blocks from lines. A block whose fence says `ts partial` is deliberately incomplete
 * and skipped. `strip` removes a comment prefix (` * `) from TSDoc lines.
 */
function extract(file: string, lines: readonly (string | undefined)[], strip: (line: string) => string | undefined): DocBlock[] {
  const blocks: DocBlock[] = [];
  let open: { line: number; partial: boolean; noRun: string | undefined; body: string[] } | undefined;
  let lastNonBlank = '';
  lines.forEach((raw, index) => {
    const line = raw === undefined ? undefined : strip(raw);
    if (line === undefined) {
      open = undefined;
      lastNonBlank = '';
      return;
    }
    const trimmed = line.trim();
    if (open === undefined) {
      const match = FENCE_OPEN.exec(trimmed);
      if (match) {
        const marker = MARKDOWN_NO_RUN.exec(lastNonBlank);
        open = { line: index + 1, partial: match[3] === 'partial', noRun: marker ? marker[1]!.trim() : undefined, body: [] };
      } else if (trimmed !== '') lastNonBlank = trimmed;
      return;
    }
    if (trimmed === '```') {
      if (!open.partial) {
        const first = open.body.find((bodyLine) => bodyLine.trim() !== '');
        const marker = first === undefined ? null : CODE_NO_RUN.exec(first.trim());
        const noRun = open.noRun ?? (marker ? marker[1]!.trim() : undefined);
        blocks.push({ file, line: open.line, code: open.body.join('\n'), ...(noRun === undefined ? {} : { noRun }) });
      }
      open = undefined;
      lastNonBlank = '';
      return;
    }
    open.body.push(line);
  });
  return blocks;
}

/** Every checked code block of the repository: docs, READMEs and TSDoc examples in package sources. */
export function collectDocBlocks(root: string): DocBlock[] {
  const markdown = [
    join(root, 'README.md'),
    ...walk(join(root, 'docs'), (path) => path.endsWith('.md')),
    ...walk(join(root, 'packages'), (path) => /packages\/[^/]+\/README\.md$/.test(path)),
  ];
  const sources = walk(join(root, 'packages'), (path) => /packages\/[^/]+\/src\/.*\.ts$/.test(path));
  const blocks: DocBlock[] = [];
  for (const path of markdown) {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch {
      continue;
    }
    blocks.push(...extract(relative(root, path), text.split('\n'), (line) => line));
  }
  for (const path of sources) {
    const lines = readFileSync(path, 'utf8').split('\n');
    let inComment = false;
    const stripped = lines.map((line) => {
      const trimmed = line.trim();
      if (trimmed.startsWith('/**')) inComment = true;
      const inside = inComment;
      if (trimmed.endsWith('*/')) inComment = false;
      if (!inside) return undefined;
      const match = /^\s*\*(?!\/) ?(.*)$/.exec(line);
      return match ? match[1] : undefined;
    });
    blocks.push(...extract(relative(root, path), stripped, (line) => line));
  }
  return blocks;
}
