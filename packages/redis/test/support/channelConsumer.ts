// A consumer process for the channel tests: consumes CHANNEL, pushes every item it receives to the list
// `${PREFIX}:test:seen`, and never finishes handling the first one (a stalled consumer), until it is killed.
// Env: REDIS_PORT, PREFIX, CHANNEL, LEASE_MS.
import { Redis } from 'ioredis';
import { z } from 'zod';
import { redisChannel } from '../../src';

const env = z.object({ REDIS_PORT: z.coerce.number().int(), PREFIX: z.string(), CHANNEL: z.string(), LEASE_MS: z.coerce.number().int() }).parse(process.env);
const redis = new Redis({ port: env.REDIS_PORT, host: '127.0.0.1' });
const channel = redisChannel<number>(redis, env.CHANNEL, { prefix: env.PREFIX, leaseMs: env.LEASE_MS });
channel.subscribe(async (item) => {
  await redis.rpush(`${env.PREFIX}:test:seen`, String(item));
  await new Promise(() => undefined);
});
process.stdout.write('ready\n');
