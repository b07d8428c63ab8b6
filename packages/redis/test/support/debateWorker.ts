// A worker process for the multi-process debate test: serves the debaters "pro", "con" and "mod" (one call
// at a time each) until SIGTERM. Env: REDIS_PORT, PREFIX, HOLD.
// Each debater streams CHUNKS chunks `<pid>:<k> ` for its turn and records each one in the list
// `${PREFIX}:test:chunks` as `<pid> <agentId> <round> <k>`. The turn named by HOLD (`<agentId> <round>`)
// stops after two chunks until the key `${PREFIX}:test:release` exists, so a test can kill its worker mid-call.
import { defineAgent } from '@rxagents/core';
import { Redis } from 'ioredis';
import { Observable } from 'rxjs';
import { z } from 'zod';
import { serveAgent } from '../../src';

const CHUNKS = 5;
const env = z.object({ REDIS_PORT: z.coerce.number().int(), PREFIX: z.string(), HOLD: z.string().default('') }).parse(process.env);
const redis = new Redis({ port: env.REDIS_PORT, host: '127.0.0.1' });
const key = (name: string) => `${env.PREFIX}:test:${name}`;

const debater = (id: string) =>
  defineAgent(id, (prompt: string) => {
    const round = /Round (\d+)/.exec(prompt)?.[1] ?? '?';
    const held = env.HOLD === `${id} ${round}`;
    return new Observable<string>((subscriber) => {
      let sent = 0;
      let stopped = false;
      const next = async (): Promise<void> => {
        while (!stopped && sent < CHUNKS) {
          if (held && sent === 2) while (!stopped && (await redis.exists(key('release'))) === 0) await pause(20);
          if (stopped) return;
          await redis.rpush(key('chunks'), `${process.pid} ${id} ${round} ${sent}`);
          subscriber.next(`${process.pid}:${sent} `);
          sent++;
          await pause(10);
        }
        if (!stopped) subscriber.complete();
      };
      next().catch((error: unknown) => subscriber.error(error));
      return () => {
        stopped = true;
      };
    });
  });

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const workers = ['pro', 'con', 'mod'].map((id) => serveAgent(redis, debater(id), { prefix: env.PREFIX, concurrency: 1, claimIdleMs: 1_000, leaseCheckMs: 100 }));
process.on('SIGTERM', () => {
  void Promise.all(workers.map((worker) => worker.close())).then(() => setTimeout(() => process.exit(0), 100));
});
process.stdout.write('ready\n');
