// A process running the durable chain of the core tests (core/test/support/durableChain.ts) on a
// RedisRunStore, as RUN_ID, counting its agents' calls in files in COUNTS_DIR. It prints every event as one
// JSON line, then its outcome, and exits (see core/test/support/runChainProcess.ts).
// Env: REDIS_PORT, PREFIX, COUNTS_DIR, RUN_ID, LEASE_TTL_MS; HOLD (`<agentId>:<chunk>`: that agent stops before that chunk).
import { Redis } from 'ioredis';
import { z } from 'zod';
import { chainRun$ } from '../../../core/test/support/durableChain';
import { runChainProcess } from '../../../core/test/support/runChainProcess';
import { RedisRunStore } from '../../src';

const env = z.object({ REDIS_PORT: z.coerce.number().int(), PREFIX: z.string(), COUNTS_DIR: z.string() }).parse(process.env);
const store = new RedisRunStore(new Redis({ port: env.REDIS_PORT, host: '127.0.0.1' }), { prefix: env.PREFIX });
runChainProcess((runId, leaseTtlMs, settings) => chainRun$(store, runId, leaseTtlMs, { ...settings, countsDir: env.COUNTS_DIR }));
