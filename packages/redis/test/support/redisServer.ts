// The one throwaway redis-server starter of the repository: the tests (describeRedis), `pnpm bench redis`
// and `redis-choreography`, and `pnpm demo scale` (examples/src/scale/localRedis.ts) all start theirs here.
// It imports node built-ins and ioredis only, so it runs from source under tsx whether the packages are
// built into dist/ or not.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis, type RedisOptions } from 'ioredis';
import { closeClient } from '../../src/internal/closeClient';

/** The redis-server binary on the PATH, or undefined. */
export function findRedisServer(): string | undefined {
  const found = spawnSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' });
  const path = found.stdout.trim();
  return found.status === 0 && path !== '' ? path : undefined;
}

/** How {@link startRedisServer} starts its server. */
export interface RedisServerOptions {
  /** AOF persistence (`--appendonly yes`), so that a restart keeps the data; on by default. */
  readonly appendOnly?: boolean;
  /** The start of the temporary directory's name. */
  readonly dirPrefix?: string;
  /**
   * TLS only: a self-signed certificate for 127.0.0.1 is made with `openssl` in the server's directory,
   * the server listens on TLS and has no plain port, and `client()` connects with TLS trusting that certificate.
   */
  readonly tls?: boolean;
}

/** A redis-server started on 127.0.0.1, on a free port, in a temporary directory (no RDB snapshots). */
export interface RedisServer {
  readonly port: number;
  readonly dir: string;
  /** `redis://127.0.0.1:<port>`. */
  readonly url: string;
  /** What a client needs to connect besides host and port: the TLS settings of a `tls` server, else nothing. */
  readonly clientOptions: RedisOptions;
  /** A new client of the server (with `options` on top of the server's own), disconnected by `stop`. */
  client(options?: RedisOptions): Redis;
  /** Stops the server (SIGTERM: it flushes its AOF) and starts it again on the same port and directory, `downMs` later. */
  restart(downMs?: number): Promise<void>;
  /** Disconnects the clients of `client()`, stops the server and removes its directory. */
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

/** Starts `binary` (see {@link findRedisServer}) and resolves once it answers a PING. */
export async function startRedisServer(binary: string, options: RedisServerOptions = {}): Promise<RedisServer> {
  const dir = mkdtempSync(join(tmpdir(), options.dirPrefix ?? 'rxagents-redis-'));
  const port = await freePort();
  const common = ['--bind', '127.0.0.1', '--save', '', '--appendonly', options.appendOnly === false ? 'no' : 'yes', '--dir', dir];
  const clientOptions: RedisOptions = options.tls === true ? { tls: selfSignedCertificate(dir) } : {};
  const listen =
    options.tls === true
      ? ['--port', '0', '--tls-port', String(port), '--tls-cert-file', join(dir, 'cert.pem'), '--tls-key-file', join(dir, 'key.pem'), '--tls-ca-cert-file', join(dir, 'cert.pem'), '--tls-auth-clients', 'no']
      : ['--port', String(port)];
  const args = [...listen, ...common];
  const launch = async (): Promise<ChildProcess> => {
    const server = spawn(binary, args, { stdio: 'ignore' });
    const probe = new Redis({ port, host: '127.0.0.1', ...clientOptions, lazyConnect: true, retryStrategy: () => 50, maxRetriesPerRequest: null });
    probe.on('error', () => undefined); // refused until the server listens; retried
    await probe.ping();
    probe.disconnect();
    return server;
  };
  const terminate = async (server: ChildProcess): Promise<void> => {
    if (server.exitCode !== null || server.signalCode !== null) return;
    const exited = new Promise((resolve) => server.once('exit', resolve));
    server.kill('SIGTERM');
    await exited;
  };
  let process = await launch();
  const clients: Redis[] = [];
  return {
    port,
    dir,
    url: `${options.tls === true ? 'rediss' : 'redis'}://127.0.0.1:${port}`,
    clientOptions,
    client: (options: RedisOptions = {}) => {
      const client = new Redis({ port, host: '127.0.0.1', ...clientOptions, ...options });
      clients.push(client);
      return client;
    },
    restart: async (downMs = 0) => {
      await terminate(process);
      if (downMs > 0) await new Promise((resolve) => setTimeout(resolve, downMs));
      process = await launch();
    },
    stop: async () => {
      for (const client of clients.splice(0)) closeClient(client);
      await terminate(process);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Makes a self-signed certificate for 127.0.0.1 with `openssl` in `dir` (cert.pem, key.pem); returns the client's TLS settings. */
function selfSignedCertificate(dir: string): NonNullable<RedisOptions['tls']> {
  const made = spawnSync(
    'openssl',
    ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')],
    { encoding: 'utf8' },
  );
  if (made.status !== 0) throw new Error(`openssl could not make a test certificate: ${made.error?.message ?? made.stderr}`);
  return { ca: readFileSync(join(dir, 'cert.pem')) };
}
