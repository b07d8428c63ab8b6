import { join, resolve } from 'node:path';
import { readdirSync } from 'node:fs';

// No import cycles inside any package (type-only imports included): a cycle makes the load order of
// modules matter, breaks tree-shaking and usually means two concepts share one file's job.
interface MadgeResult {
  circular(): string[][];
  obj(): Record<string, string[]>;
}
type Madge = (paths: string[], config: Record<string, unknown>) => Promise<MadgeResult>;
// madge ships no type declarations.
const madge = require('madge') as Madge;

const root = resolve(__dirname, '..');
const packages = readdirSync(join(root, 'packages')).sort();

async function scan(): Promise<{ modules: string[]; cycles: Map<string, string[]> }> {
  const graph = await madge(
    packages.map((name) => join('packages', name, 'src')),
    { baseDir: root, fileExtensions: ['ts'], tsConfig: join(root, 'tsconfig.base.json') },
  );
  const cycles = new Map<string, string[]>(packages.map((name) => [name, []]));
  for (const cycle of graph.circular()) {
    const owner = /^packages\/([^/]+)\//.exec(cycle[0]!.replace(/\\/g, '/'))?.[1] ?? '(outside packages)';
    const listed = cycles.get(owner) ?? [];
    listed.push([...cycle, cycle[0]].join(' -> '));
    cycles.set(owner, listed);
  }
  return { modules: Object.keys(graph.obj()).map((path) => path.replace(/\\/g, '/')), cycles };
}

describe('import cycles', () => {
  let modules: string[];
  let cycles: Map<string, string[]>;

  beforeAll(async () => {
    ({ modules, cycles } = await scan());
  }, 20_000);

  it('reads the modules of every package', () => {
    expect(modules).toEqual(expect.arrayContaining(packages.map((name) => `packages/${name}/src/index.ts`)));
  });

  it.each(packages)('%s has no import cycle', (name) => {
    expect(cycles.get(name)).toEqual([]);
  });

  it('finds no cycle outside the packages', () => {
    expect(cycles.get('(outside packages)') ?? []).toEqual([]);
  });
});
