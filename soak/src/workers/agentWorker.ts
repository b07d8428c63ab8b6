// A worker process of `pnpm soak`: serves one agent over Redis until it is killed. Settings come from the
// environment (see soak/src/soakRedis.ts's WorkerSettings). Each call's first chunk is "<pid> <start time>",
// so the caller can tell which worker started the attempt it got, and when; the running calls are kept
// in a hash (input -> pid) so the caller can tell which calls a killed worker had.
import { defineAgent } from '@rxagents/core';
import { serveAgent } from '@rxagents/redis';
import { Redis } from 'ioredis';
import { Observable } from 'rxjs';
import { z } from 'zod';
import { runningKey } from '../soakRedis';

const env = z
  .object({
    REDIS_PORT: z.coerce.number().int(),
    PREFIX: z.string(),
    AGENT_ID: z.string(),
    CONCURRENCY: z.coerce.number().int(),
    CLAIM_IDLE_MS: z.coerce.number().int(),
    LEASE_CHECK_MS: z.coerce.number().int(),
    CALL_MS: z.coerce.number().int(),
    CHUNK_MS: z.coerce.number().int(),
  })
  .parse(process.env);
const redis = new Redis({ port: env.REDIS_PORT, host: '127.0.0.1' });
const running = runningKey(env.PREFIX);

const agent = defineAgent(env.AGENT_ID, (input: string) => {
  return new Observable<string>((subscriber) => {
    void redis.hset(running, input, String(process.pid));
    subscriber.next(`${process.pid} ${Date.now()} `);
    const started = Date.now();
    const timer = setInterval(() => {
      if (Date.now() - started >= env.CALL_MS) subscriber.complete();
      else subscriber.next('.');
    }, env.CHUNK_MS);
    return () => {
      clearInterval(timer);
      void redis.hdel(running, input);
    };
  });
});

serveAgent(redis, agent, { prefix: env.PREFIX, concurrency: env.CONCURRENCY, claimIdleMs: env.CLAIM_IDLE_MS, leaseCheckMs: env.LEASE_CHECK_MS, onError: () => undefined });
process.stdout.write(`ready ${process.pid}\n`);
