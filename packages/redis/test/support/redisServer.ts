import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';

/** The redis-server binary on the PATH, or undefined. */
export function findRedisServer(): string | undefined {
  const found = spawnSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' });
  const path = found.stdout.trim();
  return found.status === 0 && path !== '' ? path : undefined;
}

/** A redis-server started for one test file: on 127.0.0.1, a free port, a temporary directory, AOF on. */
export interface RedisServer {
  readonly port: number;
  readonly dir: string;
  client(): Redis;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export async function startRedisServer(binary: string): Promise<RedisServer> {
  const dir = mkdtempSync(join(tmpdir(), 'rxagents-redis-'));
  const port = await freePort();
  const process: ChildProcess = spawn(binary, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'yes', '--dir', dir], {
    stdio: 'ignore',
  });
  const clients: Redis[] = [];
  const probe = new Redis({ port, host: '127.0.0.1', lazyConnect: true, retryStrategy: () => 50, maxRetriesPerRequest: null });
  await probe.ping();
  probe.disconnect();
  return {
    port,
    dir,
    client: () => {
      const client = new Redis({ port, host: '127.0.0.1' });
      clients.push(client);
      return client;
    },
    stop: async () => {
      for (const client of clients) client.disconnect();
      const exited = new Promise((resolve) => process.once('exit', resolve));
      process.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
