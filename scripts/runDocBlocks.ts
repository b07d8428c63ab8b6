import { spawn } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import type { DocBlock } from './docBlocks';

/** What happened when one documentation block was executed. */
export interface BlockRun {
  readonly block: DocBlock;
  /** `undefined` when the block ran to its end and exited 0; otherwise what went wrong, with its stderr. */
  readonly failure?: string;
  readonly stdout: string;
  readonly durationMs: number;
}

export interface RunOptions {
  /** Time limit per block; a block still running then is killed and fails. */
  readonly timeoutMs: number;
  /** How many blocks run at once (default: the number of cores plus two). */
  readonly concurrency?: number;
  /** Scratch directory (removed afterwards). */
  readonly workDir: string;
}

// tsx compiles TypeScript with esbuild; the blocks are bundled with that same esbuild once (one call for
// every block, sharing chunks), so each child process only starts Node and loads plain JavaScript
// instead of compiling the packages' sources again. Imports of `@rxagents/*` resolve through the paths
// of tsconfig.base.json to packages/*/src, exactly as in the type-check.
// esbuild is tsx's own dependency, not the workspace's, so it is reached through tsx and typed here.
interface EsbuildModule {
  build(options: Record<string, unknown>): Promise<unknown>;
}
const esbuild = (): EsbuildModule => createRequire(require.resolve('tsx'))('esbuild') as EsbuildModule;

/**
 * Executes every block without a no-run marker, each as the entry module of its own Node process
 * (ESM, so top-level `await` works and a top-level await that never settles exits with code 13).
 */
export async function runDocBlocks(root: string, blocks: readonly DocBlock[], options: RunOptions): Promise<BlockRun[]> {
  const srcDir = join(options.workDir, 'src');
  const outDir = join(options.workDir, 'out');
  rmSync(options.workDir, { recursive: true, force: true });
  mkdirSync(srcDir, { recursive: true });
  const entries = blocks.map((block, index) => {
    const path = join(srcDir, `block-${index}.mts`);
    writeFileSync(path, `${block.code}\nexport {};\n`);
    return path;
  });
  const built = await esbuild().build({
    entryPoints: entries,
    outdir: outDir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    // Linked maps are read only when a failed block is run again with --enable-source-maps for its stack.
    sourcemap: 'linked',
    outExtension: { '.js': '.mjs' },
    tsconfig: join(root, 'tsconfig.base.json'),
    // Packages published as CommonJS call require(); give the ESM bundle one.
    banner: { js: "import { createRequire as __docsCreateRequire } from 'node:module'; const require = __docsCreateRequire(import.meta.url);" },
    logLevel: 'silent',
    absWorkingDir: root,
  }).then(
    () => undefined,
    (error: Error) => error,
  );
  if (built !== undefined) {
    return blocks.map((block) => ({ block, failure: `the blocks could not be bundled:\n${built.message}`, stdout: '', durationMs: 0 }));
  }
  const results: (BlockRun & { timedOut: boolean })[] = new Array(blocks.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < blocks.length) {
      const index = next++;
      const script = join(outDir, `block-${index}.mjs`);
      const first = await runOne(blocks[index]!, script, root, options.timeoutMs, { sourceMaps: false });
      // Loading source maps costs more than running most blocks: only a failure is run again with them,
      // so that its stack names lines of the block rather than of the bundle.
      results[index] = first.failure === undefined || first.timedOut ? first : await runOne(blocks[index]!, script, root, options.timeoutMs, { sourceMaps: true });
    }
  };
  // Two more than the cores: some blocks wait on real timers (a documented delay) and use no CPU meanwhile.
  const concurrency = Math.max(1, options.concurrency ?? availableParallelism() + 2);
  await Promise.all(Array.from({ length: concurrency }, worker));
  // A block killed at the time limit while the machine was busy (its neighbours, other test workers) gets
  // one more run, alone, with source maps: a block that never ends fails again, a slow start does not.
  for (let index = 0; index < blocks.length; index++) {
    if (!results[index]!.timedOut) continue;
    results[index] = await runOne(blocks[index]!, join(outDir, `block-${index}.mjs`), root, options.timeoutMs, { sourceMaps: true, alone: true });
  }
  return results;
}

/** `alone`: the second run of a block killed at the time limit, which its failure then says. */
function runOne(block: DocBlock, script: string, cwd: string, timeoutMs: number, { sourceMaps, alone = false }: { sourceMaps: boolean; alone?: boolean }): Promise<BlockRun & { timedOut: boolean }> {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...(sourceMaps ? ['--enable-source-maps'] : []), script], { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NODE_ENV: 'test' } });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const durationMs = Date.now() - started;
      const where = `${block.file}:${block.line}`;
      let failure: string | undefined;
      if (timedOut) failure = `${where}: still running after ${timeoutMs} ms (killed${alone ? '), twice: the second time it ran alone' : ')'}. A block that runs forever on purpose needs a no-run marker.`;
      else if (code === 13) failure = `${where}: exit code 13, a top-level await never settled (the awaited Promise or Observable never finished).`;
      else if (code !== 0) failure = `${where}: exit code ${code ?? signal}.`;
      resolve({ block, stdout, durationMs, timedOut, ...(failure === undefined ? {} : { failure: `${failure}\n--- stderr ---\n${stderr.trim()}` }) });
    });
  });
}
