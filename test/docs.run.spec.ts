import { join, resolve } from 'node:path';
import { rmSync } from 'node:fs';
import { collectDocBlocks } from '../scripts/docBlocks';
import { runDocBlocks, type BlockRun } from '../scripts/runDocBlocks';

// Every self-contained ```ts block of the README, docs/ and TSDoc examples is executed, each in its own
// Node process with a time limit: a block must run to its end and exit 0. A block that cannot run (it
// needs a network service, runs forever on purpose) carries a no-run marker with the reason: in
// Markdown `<!-- no-run: why -->` just before the fence, in TSDoc `// no-run: why` as its first line.
const root = resolve(__dirname, '..');
const blocks = collectDocBlocks(root);
const runnable = blocks.filter((block) => block.noRun === undefined);
const workDir = join(root, '.tmp', `docs-run-${process.pid}`);
const TIME_LIMIT_MS = 10_000;

let runs: Map<(typeof blocks)[number], BlockRun>;

beforeAll(async () => {
  const started = Date.now();
  runs = new Map((await runDocBlocks(root, runnable, { timeoutMs: TIME_LIMIT_MS, workDir })).map((run) => [run.block, run]));
  if (process.env['DOCS_RUN_TIMING']) console.log(`ran ${runnable.length} blocks in ${Date.now() - started} ms`);
}, 900_000);

afterAll(() => rmSync(workDir, { recursive: true, force: true }));

describe('documentation code blocks run', () => {
  const byFile = new Map<string, typeof blocks>();
  for (const block of blocks) byFile.set(block.file, [...(byFile.get(block.file) ?? []), block]);
  for (const [file, entries] of byFile) {
    describe(file, () => {
      for (const block of entries) {
        if (block.noRun !== undefined) {
          it(`block at line ${block.line} is not run, and says why`, () => {
            expect(block.noRun).not.toBe('');
          });
        } else {
          it(`block at line ${block.line} runs`, () => {
            expect(runs.get(block)?.failure ?? '').toBe('');
          });
        }
      }
    });
  }
});

describe('the block runner', () => {
  const scratch = join(root, '.tmp', `docs-run-self-${process.pid}`);
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('fails a block with its location and stderr: a throw, an await that never settles, a time limit', async () => {
    const probes = [
      { file: 'probe.md', line: 3, code: "throw new Error('boom from the block');" },
      { file: 'probe.md', line: 9, code: 'await new Promise(() => {});' },
      { file: 'probe.ts', line: 12, code: 'setInterval(() => {}, 1_000);' },
      { file: 'probe.ts', line: 20, code: "import { of } from 'rxjs';\nof(1).subscribe(console.log);" },
    ];
    const [thrown, unsettled, endless, fine] = await runDocBlocks(root, probes, { timeoutMs: 2_000, workDir: scratch });
    expect(thrown?.failure).toMatch(/^probe\.md:3: exit code 1\.[\s\S]*--- stderr ---[\s\S]*boom from the block/);
    expect(unsettled?.failure).toMatch(/^probe\.md:9: exit code 13, a top-level await never settled/);
    expect(endless?.failure).toMatch(/^probe\.ts:12: still running after 2000 ms \(killed\), twice: the second time it ran alone\./);
    expect(fine?.failure).toBeUndefined();
    expect(fine?.stdout).toBe('1\n');
  }, 60_000);
});
