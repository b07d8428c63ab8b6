// A caller process for the re-attach tests: runs a durable run (journaled to the Redis run store) whose body
// calls the remote agent "scribe" once, and waits (until it is killed). Env: REDIS_PORT, PREFIX, RUN_ID.
import { invoke$, observeRun } from '@rxagents/core';
import { Redis } from 'ioredis';
import { z } from 'zod';
import { RedisRunStore, remoteAgent } from '../../src';

const env = z.object({ REDIS_PORT: z.coerce.number().int(), PREFIX: z.string(), RUN_ID: z.string() }).parse(process.env);
const redis = new Redis({ port: env.REDIS_PORT, host: '127.0.0.1' });
const scribe = remoteAgent(redis, 'scribe', { prefix: env.PREFIX, leaseMs: 60_000 });
const store = new RedisRunStore(redis, { prefix: env.PREFIX });
observeRun('story', 'dragons', (run) => invoke$(scribe, 'dragons', { run }), { store, runId: env.RUN_ID, leaseTtlMs: 300 }).subscribe({ error: (error: unknown) => console.error(error) });
process.stdout.write('ready\n');
