import { join, resolve } from 'node:path';
import { collectDocBlocks } from '../../../scripts/docBlocks';
import { runDocBlocks } from '../../../scripts/runDocBlocks';

it('runs my blocks', async () => {
  const root = resolve(__dirname, '../../..');
  const filter = (process.env['BLOCKS'] ?? 'packages/testing/src').split(',');
  const blocks = collectDocBlocks(root).filter((b) => filter.some((f) => b.file.includes(f)) && b.noRun === undefined);
  const runs = await runDocBlocks(root, blocks, { timeoutMs: 20_000, workDir: join(root, '.tmp', 'mine') });
  const failures = runs.filter((run) => run.failure).map((run) => run.failure);
  console.log(`${runs.length} blocks, ${failures.length} failures\n${failures.join('\n\n')}`);
  expect(failures).toEqual([]);
}, 600_000);
