import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';

/** A Redis the demo can use: its URL, and how to let it go. */
export interface DemoRedis {
  readonly url: string;
  readonly started: boolean;
  stop(): Promise<void>;
}

/**
 * `REDIS_URL` when it is set; else a redis-server started on 127.0.0.1, on a free port, in a temporary
 * directory (AOF on), stopped by `stop`; else `undefined` (no redis-server on the PATH).
 */
export async function demoRedis(): Promise<DemoRedis | undefined> {
  const given = (process.env.REDIS_URL ?? '').trim();
  if (given !== '') return { url: given, started: false, stop: async () => undefined };
  const found = spawnSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' });
  const binary = found.status === 0 ? found.stdout.trim() : '';
  if (binary === '') return undefined;
  const dir = mkdtempSync(join(tmpdir(), 'rxagents-demo-redis-'));
  const port = await new Promise<number>((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });
  const server = spawn(binary, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'yes', '--dir', dir], { stdio: 'ignore' });
  const ping = new Redis({ port, host: '127.0.0.1', lazyConnect: true, retryStrategy: () => 50, maxRetriesPerRequest: null });
  ping.on('error', () => undefined); // refused until the server listens; retried
  await ping.ping();
  ping.disconnect();
  return {
    url: `redis://127.0.0.1:${port}`,
    started: true,
    stop: async () => {
      const exited = new Promise((resolve) => server.once('exit', resolve));
      server.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
