import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Cluster, Redis } from 'ioredis';
import { closeClient } from '../../src/internal/closeClient';

/** The redis-server and redis-cli binaries on the PATH, or the reason a cluster cannot be started. */
export function findClusterTools(): { server: string; cli: string } | { missing: string } {
  const which = (name: string): string | undefined => {
    const found = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' });
    const path = found.stdout.trim();
    return found.status === 0 && path !== '' ? path : undefined;
  };
  const server = which('redis-server');
  const cli = which('redis-cli');
  if (server === undefined) return { missing: 'redis-server is not on the PATH (apt-get install redis-server)' };
  if (cli === undefined) return { missing: 'redis-cli is not on the PATH (apt-get install redis-tools)' };
  return { server, cli };
}

/** A 3-master Redis Cluster started for one test file: on 127.0.0.1, in a temporary directory, AOF on. */
export interface RedisCluster {
  readonly ports: readonly number[];
  /** A cluster client, disconnected by `stop()`. */
  client(): Cluster;
  /** A plain client of the node at `port` (for `CLUSTER KEYSLOT`, `CLUSTER NODES`, ...), disconnected by `stop()`. */
  node(port: number): Redis;
  /** The port of the master serving `key`'s slot. */
  portOf(key: string): Promise<number>;
  stop(): Promise<void>;
}

/** True when nothing listens on `port` of 127.0.0.1. */
async function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** A port whose cluster bus port (`port + 10000`) is free too; from a range below the ephemeral ports. */
async function freeClusterPort(taken: readonly number[]): Promise<number> {
  for (let tries = 0; tries < 200; tries++) {
    const port = 20_000 + Math.floor(Math.random() * 10_000);
    if (taken.includes(port)) continue;
    if ((await isFree(port)) && (await isFree(port + 10_000))) return port;
  }
  throw new Error('no free port pair for a cluster node');
}

async function waitFor(what: string, check: () => Promise<boolean>, limitMs = 30_000): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`gave up waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export async function startRedisCluster(tools: { server: string; cli: string }): Promise<RedisCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'rxagents-redis-cluster-'));
  const ports: number[] = [];
  for (let i = 0; i < 3; i++) ports.push(await freeClusterPort(ports));
  const processes: ChildProcess[] = ports.map((port) => {
    const nodeDir = join(dir, `n${port}`);
    mkdirSync(nodeDir);
    const args = ['--port', String(port), '--bind', '127.0.0.1', '--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf', '--appendonly', 'yes', '--save', '', '--dir', nodeDir];
    return spawn(tools.server, args, { stdio: 'ignore' });
  });
  const clients: (Redis | Cluster)[] = [];
  const node = (port: number): Redis => {
    const client = new Redis({ port, host: '127.0.0.1', retryStrategy: () => 50, maxRetriesPerRequest: null });
    clients.push(client);
    return client;
  };
  const stop = async (): Promise<void> => {
    for (const client of clients) closeClient(client);
    await Promise.all(
      processes.map(async (child) => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }),
    );
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const probes = ports.map(node);
    await Promise.all(probes.map((probe) => probe.ping()));
    const created = spawnSync(tools.cli, ['--cluster', 'create', ...ports.map((port) => `127.0.0.1:${port}`), '--cluster-replicas', '0', '--cluster-yes'], { encoding: 'utf8' });
    if (created.status !== 0) throw new Error(`redis-cli --cluster create failed: ${created.stdout}${created.stderr}`);
    for (const probe of probes) {
      await waitFor(`node ${probe.options.port ?? '?'} says cluster_state:ok`, async () => String(await probe.call('CLUSTER', 'INFO')).includes('cluster_state:ok'));
    }
  } catch (error) {
    await stop();
    throw error;
  }
  const any = node(ports[0] as number);
  return {
    ports,
    client: () => {
      const client = new Cluster(ports.map((port) => ({ host: '127.0.0.1', port })));
      clients.push(client);
      return client;
    },
    node,
    portOf: async (key) => {
      const slot = Number(await any.call('CLUSTER', 'KEYSLOT', key));
      const slots = (await any.call('CLUSTER', 'SLOTS')) as [number, number, [string, number, ...unknown[]], ...unknown[]][];
      const range = slots.find(([from, to]) => slot >= from && slot <= to);
      if (range === undefined) throw new Error(`no node serves slot ${slot}`);
      return range[2][1];
    },
    stop,
  };
}
