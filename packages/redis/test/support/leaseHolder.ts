// A process that takes the lease of RUN_ID in the RedisRunStore under PREFIX (on REDIS_PORT), prints
// "ready" and the lease's epoch, and holds the lease (it never renews nor releases it) until it is killed.
import { Redis } from 'ioredis';
import { z } from 'zod';
import { RedisRunStore } from '../../src';

const env = z.object({ REDIS_PORT: z.coerce.number().int(), PREFIX: z.string(), RUN_ID: z.string() }).parse(process.env);
const store = new RedisRunStore(new Redis({ port: env.REDIS_PORT, host: '127.0.0.1' }), { prefix: env.PREFIX });

void store.acquireLease(env.RUN_ID, 600_000).then((lease) => process.stdout.write(`ready ${lease.epoch}\n`));
