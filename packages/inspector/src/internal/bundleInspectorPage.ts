import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { build } from 'esbuild';

/** This module's directory: CommonJS and the ESM build (whose `__dirname` is shimmed) know it. */
const moduleDir: string | undefined = typeof __dirname === 'string' ? __dirname : undefined;

/**
 * The inspector page's script: `src/page/main.ts` of this package (shipped beside `dist`), bundled in
 * memory by esbuild (React's production build); the packages it imports resolve from `node_modules`, or
 * in this repository through the tsconfig paths to the workspace sources. Run from its sources as ESM
 * (no `__dirname`), it imports the page as `@rxagents/inspector/page` from the working directory, which
 * this repository's tsconfig paths map to the sources.
 */
export async function bundleInspectorPage(): Promise<string> {
  const entry =
    moduleDir === undefined
      ? { stdin: { contents: "import '@rxagents/inspector/page';", resolveDir: process.cwd(), loader: 'ts' as const } }
      : { entryPoints: [pageEntry(moduleDir)] };
  const result = await build({
    ...entry,
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    define: { 'process.env.NODE_ENV': '"production"' },
    logLevel: 'silent',
  });
  const [output] = result.outputFiles;
  if (output === undefined) throw new Error('esbuild produced no bundle for the inspector page');
  return output.text;
}

/** `src/page/main.ts` of the package this module is in: from `src/internal` (sources) or `dist` (the build), up to the package's root. */
function pageEntry(from: string): string {
  for (let dir = from, level = 0; level < 4; dir = dirname(dir), level++) {
    const entry = join(dir, 'src', 'page', 'main.ts');
    if (existsSync(entry)) return entry;
  }
  throw new Error(`The inspector page's sources (src/page/main.ts) are not beside ${from}`);
}
