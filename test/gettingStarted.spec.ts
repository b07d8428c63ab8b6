import { readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { collectDocBlocks } from '../scripts/docBlocks';
import { runDocBlocks, type BlockRun } from '../scripts/runDocBlocks';

// docs/getting-started.md is a newcomer's first hour: each of its ```ts blocks is followed by a ```text
// block saying exactly what it prints. Every block runs (as docs.run.spec.ts runs all blocks) and its
// output must be that text, so the guide cannot drift from what the code does.
const root = resolve(__dirname, '..');
const GUIDE = 'docs/getting-started.md';
const lines = readFileSync(join(root, GUIDE), 'utf8').split('\n');
const blocks = collectDocBlocks(root).filter((block) => block.file === GUIDE);
const workDir = join(root, '.tmp', `getting-started-${process.pid}`);

/** The ```text block right after the ```ts block opened at `line` (1-based), or undefined. */
function printedAfter(line: number): string | undefined {
  let index = line; // the line after the opening fence, 0-based
  while (index < lines.length && lines[index]!.trim() !== '```') index++;
  index++;
  while (index < lines.length && lines[index]!.trim() === '') index++;
  if (lines[index]?.trim() !== '```text') return undefined;
  const body: string[] = [];
  for (index++; index < lines.length && lines[index]!.trim() !== '```'; index++) body.push(lines[index]!);
  return `${body.join('\n')}\n`;
}

let runs: BlockRun[];

beforeAll(async () => {
  runs = await runDocBlocks(root, blocks, { timeoutMs: 20_000, workDir, concurrency: 2 });
}, 300_000);

afterAll(() => rmSync(workDir, { recursive: true, force: true }));

describe('the getting-started guide', () => {
  it('has the four steps, each a runnable block', () => {
    expect(blocks.filter((block) => block.noRun === undefined)).toHaveLength(4);
  });

  it.each(blocks.map((block, index) => [block.line, index] as const))('block at line %i runs and prints what the guide says', (line, index) => {
    const expected = printedAfter(line);
    expect(expected).toBeDefined();
    expect(runs[index]!.failure ?? '').toBe('');
    expect(runs[index]!.stdout).toBe(expected);
  });
});
