import { createRequire } from 'node:module';
import { join } from 'node:path';

// esbuild is the benchmarks' dependency (they weigh the same page from the built packages).
const root = join(__dirname, '..', '..', '..');
const { build } = createRequire(join(root, 'bench', 'package.json'))('esbuild') as typeof import('esbuild');

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
