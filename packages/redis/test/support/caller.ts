// A caller process for the multi-process tests: calls "teller" once and waits (until it is killed).
// Env: REDIS_PORT, PREFIX, INPUT.
import { stream } from '@rxagents/core';
import { Redis } from 'ioredis';
import { z } from 'zod';
import { remoteAgent } from '../../src';

const env = z.object({ REDIS_PORT: z.coerce.number().int(), PREFIX: z.string(), INPUT: z.string() }).parse(process.env);
const teller = remoteAgent(new Redis({ port: env.REDIS_PORT, host: '127.0.0.1' }), 'teller', { prefix: env.PREFIX, leaseMs: 1_000 });
stream(teller, env.INPUT).subscribe({ error: (error: unknown) => console.error(error) });
process.stdout.write('ready\n');
