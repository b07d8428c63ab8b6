import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startWebDemo } from '../../web/server';
import type { Scene } from '../Scene';

/**
 * The demo page: a debate or the article choreography, live in a browser, or a run that waits for a
 * person's approval or input, until Ctrl-C. The waiting runs are kept in `DEMO_STORE_DIR` (default a
 * fixed folder in the temporary directory), so a server started again resumes them.
 */
export const scene: Scene = {
  name: 'web',
  title: 'the demo page: a live run in the browser (serves until Ctrl-C)',
  onlyWhenNamed: true,
  async run() {
    const port = process.env.PORT === undefined || process.env.PORT === '' ? 0 : Number(process.env.PORT);
    if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new Error(`PORT must be a port number, got "${process.env.PORT}"`);
    const storeDir = process.env.DEMO_STORE_DIR === undefined || process.env.DEMO_STORE_DIR === '' ? join(tmpdir(), 'rxagents-demo-web-runs') : process.env.DEMO_STORE_DIR;
    const demo = await startWebDemo({ webDir: join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'web'), port, storeDir });
    console.log(`Runs waiting for a person are kept in ${storeDir}`);
    console.log(`Open ${demo.url} (Ctrl-C stops the server); the run inspector is at ${demo.url}inspector/`);
    await new Promise<void>((resolve) => {
      const stop = (): void => {
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
        void demo.close().then(resolve);
      };
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    });
  },
};
