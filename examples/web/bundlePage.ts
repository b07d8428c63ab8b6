import { join } from 'node:path';
import { build } from 'esbuild';

/**
 * The page's script, bundled in memory by esbuild from `page/main.ts` with the workspace packages
 * resolved to their sources (through the repository's tsconfig paths), so no build step comes first.
 */
export async function bundlePage(webDir: string): Promise<string> {
  const result = await build({
    entryPoints: [join(webDir, 'page', 'main.ts')],
    tsconfig: join(webDir, '..', '..', 'tsconfig.base.json'),
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    logLevel: 'silent',
  });
  const [output] = result.outputFiles;
  if (output === undefined) throw new Error('esbuild produced no bundle for the demo page');
  return output.text;
}
