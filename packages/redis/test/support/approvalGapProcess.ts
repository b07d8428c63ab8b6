// A process running the core tests' approval run (core/test/support/approvalGapChild.ts) on a
// RedisRunStore, as RUN_ID, its question's append waiting for the file GATE.
// Env: REDIS_PORT, PREFIX, RUN_ID, LEASE_TTL_MS, GATE.
import { Redis } from 'ioredis';
import { z } from 'zod';
import { runApprovalGapChild } from '../../../core/test/support/approvalGapChild';
import { RedisRunStore } from '../../src';

const env = z.object({ REDIS_PORT: z.coerce.number().int(), PREFIX: z.string() }).parse(process.env);
runApprovalGapChild(new RedisRunStore(new Redis({ port: env.REDIS_PORT, host: '127.0.0.1' }), { prefix: env.PREFIX }));
