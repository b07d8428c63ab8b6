import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startWebDemo } from '../../web/server';
import type { Scene } from '../Scene';

/** The demo page: a debate or the article choreography, live in a browser, until Ctrl-C. */
export const scene: Scene = {
  name: 'web',
  title: 'the demo page: a live run in the browser (serves until Ctrl-C)',
  onlyWhenNamed: true,
  async run() {
    const port = process.env.PORT === undefined || process.env.PORT === '' ? 0 : Number(process.env.PORT);
    if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new Error(`PORT must be a port number, got "${process.env.PORT}"`);
    const demo = await startWebDemo({ webDir: join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'web'), port });
    console.log(`Open ${demo.url} (Ctrl-C stops the server)`);
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
