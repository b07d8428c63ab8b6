// Checks every built package the way a consumer sees it: publint (package.json and exports) and
// @arethetypeswrong/cli (types resolve for ESM, CJS and bundlers), then compiles the benchmarks and
// bench/src/distConsumer.ts against the built .d.ts files, as a user's project sees them. Run after `pnpm build`.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const bin = (name) => join(root, 'node_modules', '.bin', name);
let failed = 0;
for (const name of readdirSync(join(root, 'packages')).sort()) {
  const dir = join(root, 'packages', name);
  if (!existsSync(join(dir, 'package.json'))) continue;
  for (const [tool, args] of [
    ['publint', ['--strict']],
    ['attw', ['--pack', '.', '--format', 'ascii']],
  ]) {
    try {
      execFileSync(bin(tool), args, { cwd: dir, stdio: 'pipe', encoding: 'utf8' });
      console.log(`ok    ${tool.padEnd(8)} @rxagents/${name}`);
    } catch (error) {
      failed += 1;
      console.log(`FAIL  ${tool.padEnd(8)} @rxagents/${name}\n${error.stdout ?? ''}${error.stderr ?? ''}`);
    }
  }
}
try {
  execFileSync(bin('tsc'), ['-p', 'bench/tsconfig.json', '--noEmit'], { cwd: root, stdio: 'pipe', encoding: 'utf8' });
  console.log('ok    tsc      bench/ and bench/src/distConsumer.ts against the built types');
} catch (error) {
  failed += 1;
  console.log(`FAIL  tsc      bench/ against the built types\n${error.stdout ?? ''}${error.stderr ?? ''}`);
}
if (failed > 0) {
  console.log(`${failed} package check(s) failed`);
  process.exit(1);
}
