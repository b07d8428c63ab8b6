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
  /** Stops the server (SIGTERM: it flushes its AOF) and starts it again on the same port and directory. */
  restart(): Promise<void>;
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
  const launch = async (): Promise<ChildProcess> => {
    const server = spawn(binary, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'yes', '--dir', dir], { stdio: 'ignore' });
    const probe = new Redis({ port, host: '127.0.0.1', lazyConnect: true, retryStrategy: () => 50, maxRetriesPerRequest: null });
    await probe.ping();
    probe.disconnect();
    return server;
  };
  const terminate = async (server: ChildProcess): Promise<void> => {
    const exited = new Promise((resolve) => server.once('exit', resolve));
    server.kill('SIGTERM');
    await exited;
  };
  let process = await launch();
  const clients: Redis[] = [];
  return {
    port,
    dir,
    client: () => {
      const client = new Redis({ port, host: '127.0.0.1' });
      clients.push(client);
      return client;
    },
    restart: async () => {
      await terminate(process);
      process = await launch();
    },
    stop: async () => {
      for (const client of clients) client.disconnect();
      await terminate(process);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
