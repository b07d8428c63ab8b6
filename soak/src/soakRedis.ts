import { type ChildProcess, spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findRedisServer, type RedisServer, startRedisServer } from '../../packages/redis/test/support/redisServer';

const repositoryRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

const MISSING = 'redis-server is not on the PATH (Debian: apt-get install redis-server)';

/** Why the Redis scenarios cannot run here, or undefined when they can. */
export function redisServerMissing(): string | undefined {
  return findRedisServer() === undefined ? MISSING : undefined;
}

/** A throwaway redis-server on 127.0.0.1 (free port, temporary directory, no persistence), or why there is none. */
export async function startSoakRedis(): Promise<RedisServer | { readonly skipped: string }> {
  const binary = findRedisServer();
  if (binary === undefined) return { skipped: MISSING };
  return startRedisServer(binary, { appendOnly: false, dirPrefix: 'rxagents-soak-' });
}

/** How a worker process of soak/src/workers/agentWorker.ts serves its agent. */
export interface WorkerSettings {
  readonly port: number;
  readonly prefix: string;
  readonly agentId: string;
  readonly concurrency: number;
  readonly claimIdleMs: number;
  readonly leaseCheckMs: number;
  /** How long one call runs, in ms. */
  readonly callMs: number;
  /** Milliseconds between the chunks of a call. */
  readonly chunkMs: number;
}

/** Starts a worker process serving the agent and resolves once it is ready. */
export async function startWorker(settings: WorkerSettings): Promise<ChildProcess> {
  const script = join(repositoryRoot, 'soak', 'src', 'workers', 'agentWorker.ts');
  const env = {
    ...process.env,
    REDIS_PORT: String(settings.port),
    PREFIX: settings.prefix,
    AGENT_ID: settings.agentId,
    CONCURRENCY: String(settings.concurrency),
    CLAIM_IDLE_MS: String(settings.claimIdleMs),
    LEASE_CHECK_MS: String(settings.leaseCheckMs),
    CALL_MS: String(settings.callMs),
    CHUNK_MS: String(settings.chunkMs),
  };
  const child = spawn(process.execPath, ['--import', 'tsx', script], { cwd: repositoryRoot, env, stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    let output = '';
    child.stdout?.on('data', (data: Buffer) => {
      output += data.toString();
      if (output.includes('ready')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`a worker exited with ${String(code)} before it was ready`)));
  });
  return child;
}

/** Kills `child` with `signal` (unless it already exited) and resolves once it exited. */
export async function stopProcess(child: ChildProcess, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill(signal);
  await exited;
}

/** The hash where the workers' agent keeps its running calls: field = the call's input, value = the worker's pid. */
export const runningKey = (prefix: string): string => `${prefix}:soak:running`;
