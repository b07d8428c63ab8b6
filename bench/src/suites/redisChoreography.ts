import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ChoreographyEngine } from '@rxagents/choreography';
import { newRunId } from '@rxagents/core';
import { redisEventBus } from '@rxagents/redis';
import { Redis } from 'ioredis';
import type { BenchFigure, BenchSuite } from '../BenchSuite';
import { median } from '../median';
import { fanOutSpec } from '../redisChoreographySpec';
import { findRedisServer, startRedisServer } from '../../../packages/redis/test/support/redisServer';

const WIDTH = 1_000;
const WAIT_MS = 20;
const ROUNDS = 3;
const WORKERS = 3;
const here = dirname(fileURLToPath(import.meta.url));

/** A worker process, and the lines it writes. */
interface Worker {
  readonly child: ChildProcess;
  next(prefix: string): Promise<string>;
}

function startWorker(env: Record<string, string>): Promise<Worker> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(here, '../redisChoreographyWorker.ts')], {
    env: { ...process.env, ...env },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  let buffer = '';
  const waiting: { prefix: string; resolve: (line: string) => void }[] = [];
  const lines: string[] = [];
  child.stdout?.on('data', (data: Buffer) => {
    buffer += data.toString();
    for (let end = buffer.indexOf('\n'); end >= 0; end = buffer.indexOf('\n')) {
      const line = buffer.slice(0, end);
      buffer = buffer.slice(end + 1);
      const index = waiting.findIndex((waiter) => line.startsWith(waiter.prefix));
      if (index >= 0) waiting.splice(index, 1)[0]?.resolve(line);
      else lines.push(line);
    }
  });
  const worker: Worker = {
    child,
    next: (prefix) =>
      new Promise((resolve) => {
        const index = lines.findIndex((line) => line.startsWith(prefix));
        if (index >= 0) resolve(lines.splice(index, 1)[0] as string);
        else waiting.push({ prefix, resolve });
      }),
  };
  return worker.next('ready').then(() => worker);
}

/**
 * Seconds for one run of the fan-out spec by the first `count` workers: from handing them the run to
 * the result of an engine in this process that hosts no agent and follows the run.
 */
async function timeRun(redis: Redis, prefix: string, workers: readonly Worker[], count: number): Promise<number> {
  const runId = newRunId();
  const follower = new ChoreographyEngine({ spec: fanOutSpec(WIDTH), remoteAgents: ['worker'], bus: redisEventBus(redis, { runId, prefix }), timeout: 600_000, logger: { warn: () => undefined } });
  const started = process.hrtime.bigint();
  const chosen = workers.slice(0, count);
  for (const worker of chosen) worker.child.stdin?.write(`${runId}\n`);
  const result = await follower.execute();
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (result.stepResults.length !== WIDTH || !result.success) throw new Error(`the run ended with ${result.stepResults.length} steps of ${WIDTH}`);
  await Promise.all(chosen.map((worker) => worker.next(`done ${runId}`)));
  return seconds;
}

/**
 * `redis-choreography`: a choreography whose interactions are shared by worker processes through a
 * Redis run (`redisEventBus`), on a redis-server this suite starts (skipped, with one line, without one).
 */
export const suite: BenchSuite = {
  name: 'redis-choreography',
  async run(log) {
    const binary = findRedisServer();
    if (binary === undefined) {
      log('skipped: redis-server is not on the PATH (apt-get install redis-server)');
      return {};
    }
    const server = await startRedisServer(binary, { appendOnly: false, dirPrefix: 'rxagents-bench-redis-' });
    const { port } = server;
    const redis = server.client();
    const prefix = `bench-${randomUUID()}`;
    const workers: Worker[] = [];
    try {
      const env = { REDIS_PORT: String(port), PREFIX: prefix, WIDTH: String(WIDTH), WAIT_MS: String(WAIT_MS) };
      workers.push(...(await Promise.all(Array.from({ length: WORKERS }, () => startWorker(env)))));
      await timeRun(redis, prefix, workers, WORKERS);
      await timeRun(redis, prefix, workers, 1);
      const one: number[] = [];
      const three: number[] = [];
      for (let round = 0; round < ROUNDS; round += 1) {
        one.push(await timeRun(redis, prefix, workers, 1));
        three.push(await timeRun(redis, prefix, workers, WORKERS));
      }
      const [byOne, byThree] = [median(one), median(three)];
      log(`${WIDTH}-interaction fan-out, agents wait ${WAIT_MS} ms, default concurrency per process: 1 process ${(byOne * 1_000).toFixed(0)} ms, ${WORKERS} processes ${(byThree * 1_000).toFixed(0)} ms`);
      const figures: Record<string, BenchFigure> = {
        choreographyScaleOut: { value: byThree / byOne, label: `time of the run by ${WORKERS} worker processes / by 1`, bar: { op: '<=', limit: 0.6 } },
      };
      return figures;
    } finally {
      for (const worker of workers) worker.child.kill('SIGTERM');
      await server.stop();
    }
  },
};
