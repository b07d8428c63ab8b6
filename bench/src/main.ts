import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
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

async function main(): Promise<void> {
  const args = process.argv.slice(2).filter((arg) => arg !== '--');
  const json = args.includes('--json');
  const wanted = args.filter((arg) => !arg.startsWith('--'));
  const suites: BenchSuite[] = [];
  for (const file of readdirSync(suitesDir).filter((f) => f.endsWith('.ts')).sort()) {
    const module = (await import(pathToFileURL(join(suitesDir, file)).href)) as { suite?: BenchSuite };
    if (module.suite !== undefined) suites.push(module.suite);
  }
  const unknown = wanted.filter((name) => !suites.some((suite) => suite.name === name));
  if (unknown.length > 0) {
    console.error(`Unknown suite: ${unknown.join(', ')}. Suites: ${suites.map((suite) => suite.name).join(', ')}`);
    process.exitCode = 2;
    return;
  }
  const selected = wanted.length === 0 ? suites : suites.filter((suite) => wanted.includes(suite.name));
  // The packages are measured as users get them: built, from dist/ (`pnpm bench` builds first; bench/tsconfig.json has no source paths).
  const patternsEntry = import.meta.resolve('@rxagents/patterns');
  if (!patternsEntry.includes('/dist/')) {
    console.error(`@rxagents/* resolve to ${patternsEntry}, not to the built dist/: run through \`pnpm bench\`.`);
    process.exitCode = 2;
    return;
  }
  if (!json) console.log(`packages from ${patternsEntry.replace(/\/patterns\/.*$/, '/*/dist/').replace(/^.*\/(packages|node_modules)\//, '$1/')}`);
  const report: Record<string, Record<string, number>> = {};
  for (const suite of selected) {
    const log = json ? () => undefined : (line: string) => console.log(`  ${line}`);
    if (!json) console.log(`\n== ${suite.name} ==`);
    const figures = await suite.run(log);
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
