// A worker process for the multi-process tests: serves the agent "teller" until SIGTERM.
// Env: REDIS_PORT, PREFIX, CONCURRENCY. The agent counts what it does in keys under `${PREFIX}:test:`.
import { defineAgent } from '@rxagents/core';
import { Redis } from 'ioredis';
import { Observable } from 'rxjs';
import { z } from 'zod';
import { serveAgent } from '../../src';

const env = z.object({ REDIS_PORT: z.coerce.number().int(), PREFIX: z.string(), CONCURRENCY: z.coerce.number().int().default(1) }).parse(process.env);
const redis = new Redis({ port: env.REDIS_PORT, host: '127.0.0.1' });
const counter = (name: string) => `${env.PREFIX}:test:${name}`;
const Input = z.object({ chunks: z.number().int(), delayMs: z.number().int() });

// Emits `chunks` chunks naming this process, one every `delayMs`.
const teller = defineAgent('teller', (input: string) => {
  const { chunks, delayMs } = Input.parse(JSON.parse(input));
  return new Observable<string>((subscriber) => {
    let sent = 0;
    let done = false;
    void redis.incr(counter('running'));
    void redis.rpush(counter('pids'), String(process.pid));
    const timer = setInterval(() => {
      subscriber.next(`${process.pid}:${sent} `);
      sent++;
      void redis.incr(counter('chunks'));
      if (sent === chunks) {
        done = true;
        void redis.incr(counter('completed'));
        subscriber.complete();
      }
    }, delayMs);
    return () => {
      clearInterval(timer);
      if (!done) void redis.incr(counter('aborted'));
      void redis.decr(counter('running'));
    };
  });
});

const worker = serveAgent(redis, teller, { prefix: env.PREFIX, concurrency: env.CONCURRENCY, claimIdleMs: 1_000, leaseCheckMs: 100 });
process.on('SIGTERM', () => {
  void worker.close().then(() => setTimeout(() => process.exit(0), 100));
});
process.stdout.write('ready\n');
