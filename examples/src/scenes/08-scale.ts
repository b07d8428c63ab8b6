import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { lastValue, observeRun, type RunEvent } from '@rxagents/core';
import { type ExecutionResult, Patterns } from '@rxagents/patterns';
import { remoteAgent } from '@rxagents/redis';
import { Redis } from 'ioredis';
import { tap } from 'rxjs';
import { debateCast, debateTopic } from '../cast/debateCast';
import { demoRedis } from '../scale/localRedis';
import type { Scene } from '../Scene';

const WORKERS = 3;
/** The turn during which the demo kills the worker that runs it. */
const VICTIM_TURN = 'operator, round 2:';

/**
 * The architecture debate with its three debaters served by three worker processes over Redis Streams.
 * The workers print their tokens as they stream them; the caller prints each turn as its remote call
 * ends. Midway through a turn the demo SIGKILLs the worker running it: the call stays pending in Redis,
 * another worker claims it after `claimIdleMs` and runs it again, and the caller's run reports a
 * `call-restarted` event. The debate ends as it would in one process, every turn once.
 */
export const scene: Scene = {
  name: 'scale',
  title: 'a debate whose debaters run in three worker processes over Redis; one worker is killed mid-turn',
  onlyWhenNamed: true,
  async run() {
    const redis = await demoRedis();
    if (redis === undefined) {
      console.log('This scene needs Redis 7: install redis-server (Debian/Ubuntu: sudo apt-get install redis-server) or set REDIS_URL=redis://host:port.');
      process.exitCode = 1;
      return;
    }
    console.log(redis.started ? `redis-server started for the demo at ${redis.url} (temporary directory, AOF on)` : `Redis at REDIS_URL (${redis.url})`);
    const prefix = `rxagents-demo-${randomUUID().slice(0, 8)}`;
    const workerScript = join(dirname(fileURLToPath(import.meta.url)), '..', 'scale', 'worker.ts');
    const workers: ChildProcess[] = [];
    const client = new Redis(redis.url);
    let killed: string | undefined;
    // Worker lines end when their turn does; a caller line that comes in between starts on a line of its own.
    let atLineStart = true;
    const write = (text: string): void => {
      if (text === '') return;
      process.stdout.write(text);
      atLineStart = text.endsWith('\n');
    };
    const say = (line: string): void => write(`${atLineStart ? '' : '\n'}[caller] ${line}\n`);
    try {
      for (let index = 1; index <= WORKERS; index += 1) {
        const name = `worker ${index}`;
        const child = await startWorker(workerScript, { REDIS_URL: redis.url, PREFIX: prefix, WORKER: name });
        workers.push(child);
        child.stdout?.on('data', (data: Buffer) => {
          const text = data.toString();
          write(text);
          if (killed === undefined && text.includes(VICTIM_TURN)) {
            killed = `${name} (pid ${String(child.pid)})`;
            // A few tokens into the turn.
            setTimeout(() => {
              child.kill('SIGKILL');
              say(`SIGKILL ${killed ?? name} in the middle of its turn`);
            }, 200);
          }
        });
      }
      console.log(`${WORKERS} worker processes serve architect, operator and accountant (concurrency 1, claimIdleMs 1.5 s); the judge runs here, in the caller.`);
      console.log('Workers print tokens as they stream them; the caller prints each turn once its remote call has ended.\n');

      const { judge } = debateCast(60);
      const debaters = ['architect', 'operator', 'accountant'].map((id) => remoteAgent(client, id, { prefix }));
      const debate = Patterns.debate({ agents: debaters, maxRounds: 4, judge, agentTimeout: 30_000 });
      const texts = new Map<string, string>();
      let restarts = 0;
      let turns = 0;
      const print = (event: RunEvent): void => {
        if (event.type === 'text-delta') texts.set(event.callId, (texts.get(event.callId) ?? '') + event.delta);
        if (event.type === 'call-end') {
          turns += event.agentId === 'judge' ? 0 : 1;
          say(`✓ ${event.agentId}: ${(texts.get(event.callId) ?? '').trim()}`);
        }
        if (event.type === 'custom' && event.name === 'call-restarted') {
          restarts += 1;
          say(`↻ call-restarted ${JSON.stringify(event.data)}: its worker died; another worker claimed the call and runs it again from the start`);
        }
      };
      let result: ExecutionResult<unknown> | undefined;
      const run = observeRun('scale-out debate', debateTopic, (context) => debate.execute$(debateTopic, { run: context }).pipe(tap((snapshot) => (result = snapshot))));
      await lastValue(run.pipe(tap(print)));
      console.log(`\nstatus: ${result?.status ?? 'none'}, debater turns: ${turns}, restarts: ${restarts}, killed: ${killed ?? 'none'}`);
      console.log(`why it ended: ${result?.reason ?? ''}`);
    } finally {
      await Promise.all(workers.map((worker) => stopWorker(worker)));
      client.disconnect();
      await redis.stop();
    }
  },
};

async function startWorker(script: string, env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', script], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    const ready = (data: Buffer): void => {
      if (!data.toString().includes('ready')) return;
      child.stdout?.off('data', ready);
      resolve();
    };
    child.stdout?.on('data', ready);
    child.once('exit', (code) => reject(new Error(`the worker exited with ${String(code)} before it was ready`)));
  });
  return child;
}

async function stopWorker(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}
