import { createRequire } from 'node:module';
import { join } from 'node:path';

// esbuild is the benchmarks' dependency (they weigh the same page from the built packages).
const root = join(__dirname, '..', '..', '..');
/** What this test uses of esbuild's `build` (its types are not a dependency of the root project). */
type Build = (options: Record<string, unknown>) => Promise<{ metafile: { outputs: Record<string, { inputs: Record<string, { bytesInOutput: number }> }> } }>;
const { build } = createRequire(join(root, 'bench', 'package.json'))('esbuild') as { build: Build };

describe('@rxagents/web/client in a page', () => {
  it('bundles fromEventStream and runView without zod', async () => {
    const result = await build({
      stdin: {
        contents: "import { fromEventStream } from '@rxagents/web/client';\nimport { runView } from '@rxagents/core';\nfromEventStream('/run').pipe(runView()).subscribe(console.log);\n",
        resolveDir: root,
        loader: 'ts',
      },
      tsconfig: join(root, 'tsconfig.base.json'),
      bundle: true,
      write: false,
      metafile: true,
      format: 'esm',
      platform: 'browser',
      logLevel: 'silent',
    });
    // The modules the bundle holds code of (esbuild reads some it then leaves out entirely).
    const modules = Object.values(result.metafile.outputs).flatMap((output) => Object.entries(output.inputs).filter(([, input]) => input.bytesInOutput > 0).map(([path]) => path));
    expect(modules.some((path) => path.includes('packages/web/src/fromEventStream.ts'))).toBe(true);
    expect(modules.filter((path) => /node_modules\/(\.pnpm\/)?zod/.test(path))).toEqual([]);
  });
});
