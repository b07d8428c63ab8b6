import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { BenchFigure, BenchSuite } from './BenchSuite';

// Suites live in ./suites, one file each exporting `suite`.
const suitesDir = join(dirname(fileURLToPath(import.meta.url)), 'suites');

function meets(figure: BenchFigure): boolean | undefined {
  if (figure.bar === undefined) return undefined;
  const { op, limit } = figure.bar;
  const v = figure.value;
  return op === '>=' ? v >= limit : op === '<=' ? v <= limit : op === '<' ? v < limit : v > limit;
}

/** The line a suite's process prints its figures on, read by the parent process. */
const FIGURES_MARK = '@@rxagents-bench-figures ';

/** In a suite's own process: runs that one suite and prints its log lines and then its figures. */
async function runChild(name: string, json: boolean): Promise<void> {
  const suite = (await loadSuites()).find((candidate) => candidate.name === name);
  if (suite === undefined) throw new Error(`unknown suite ${name}`);
  const figures = await suite.run(json ? () => undefined : (line) => console.log(`  ${line}`));
  console.log(FIGURES_MARK + JSON.stringify(figures));
}

/**
 * Runs one suite in a fresh Node process (same flags: `--expose-gc`, the tsx loader) and returns its figures.
 * A fresh process per suite keeps the JIT's type feedback of one suite (a channel used with every strategy,
 * say) from slowing another suite's measurement of the same code.
 */
function runInProcess(name: string, json: boolean): Promise<Record<string, BenchFigure>> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), ...(json ? ['--json'] : [])], {
      env: { ...process.env, RXAGENTS_BENCH_SUITE: name },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let figures: Record<string, BenchFigure> | undefined;
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (line.startsWith(FIGURES_MARK)) figures = JSON.parse(line.slice(FIGURES_MARK.length)) as Record<string, BenchFigure>;
      else console.log(line);
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0 && figures !== undefined) resolve(figures);
      else reject(new Error(`suite ${name} exited with code ${code}${figures === undefined ? ' before printing its figures' : ''}`));
    });
  });
}

async function loadSuites(): Promise<BenchSuite[]> {
  const suites: BenchSuite[] = [];
  for (const file of readdirSync(suitesDir).filter((f) => f.endsWith('.ts')).sort()) {
    const module = (await import(pathToFileURL(join(suitesDir, file)).href)) as { suite?: BenchSuite };
    if (module.suite !== undefined) suites.push(module.suite);
  }
  return suites;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2).filter((arg) => arg !== '--');
  const json = args.includes('--json');
  const child = process.env.RXAGENTS_BENCH_SUITE;
  if (child !== undefined) return runChild(child, json);
  const wanted = args.filter((arg) => !arg.startsWith('--'));
  const suites = await loadSuites();
  // A name selects its suite and the suites named after it (`redis` runs `redis` and `redis-choreography`).
  const selects = (name: string, suite: BenchSuite): boolean => suite.name === name || suite.name.startsWith(`${name}-`);
  const unknown = wanted.filter((name) => !suites.some((suite) => selects(name, suite)));
  if (unknown.length > 0) {
    console.error(`Unknown suite: ${unknown.join(', ')}. Suites: ${suites.map((suite) => suite.name).join(', ')}`);
    process.exitCode = 2;
    return;
  }
  const selected = wanted.length === 0 ? suites : suites.filter((suite) => wanted.some((name) => selects(name, suite)));
  // The packages are measured as users get them: built, from dist/ (`pnpm bench` builds first; bench/tsconfig.json has no source paths).
  const patternsEntry = import.meta.resolve('@rxagents/patterns');
  if (!patternsEntry.includes('/dist/')) {
    console.error(`@rxagents/* resolve to ${patternsEntry}, not to the built dist/: run through \`pnpm bench\`.`);
    process.exitCode = 2;
    return;
  }
  if (!json) console.log(`packages from ${patternsEntry.replace(/\/patterns\/.*$/, '/*/dist/').replace(/^.*\/(packages|node_modules)\//, '$1/')}, each suite in a fresh process`);
  const report: Record<string, Record<string, number>> = {};
  for (const suite of selected) {
    if (!json) console.log(`\n== ${suite.name} ==`);
    const figures = await runInProcess(suite.name, json);
    report[suite.name] = Object.fromEntries(Object.entries(figures).map(([key, figure]) => [key, figure.value]));
    if (!json) {
      for (const [key, figure] of Object.entries(figures)) {
        const ok = meets(figure);
        const bar = figure.bar === undefined ? '' : ` (bar ${figure.bar.op} ${figure.bar.limit}: ${ok ? 'met' : 'NOT met'})`;
        console.log(`  ${key} = ${Number(figure.value.toPrecision(4))}  ${figure.label}${bar}`);
      }
    }
  }
  if (json) console.log(JSON.stringify(selected.length === 1 ? report[selected[0]!.name] : report));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
