import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

/** The page a browser client of a run is: it reads the run's events and folds them into a view. */
const PAGE = `import { fromEventStream } from '@rxagents/web/client';
import { runView } from '@rxagents/core';
fromEventStream('/api/run').pipe(runView()).subscribe((view) => console.log(view));
`;

/**
 * The browser client's weight as a page gets it: `PAGE` bundled by esbuild from the built packages
 * (their `dist/`, as installed), minified for the browser, then gzipped. Returns kilobytes (1,024 bytes).
 */
export async function clientBundleKB(): Promise<{ minifiedKB: number; gzippedKB: number }> {
  const result = await build({
    stdin: { contents: PAGE, resolveDir: dirname(fileURLToPath(import.meta.url)), loader: 'ts' },
    bundle: true,
    minify: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    logLevel: 'silent',
  });
  const [output] = result.outputFiles;
  if (output === undefined) throw new Error('esbuild produced no bundle for the client page');
  return { minifiedKB: output.contents.length / 1024, gzippedKB: gzipSync(output.contents).length / 1024 };
}
