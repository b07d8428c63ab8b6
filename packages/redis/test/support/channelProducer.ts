// A producer process for the channel tests: offers COUNT numbers to the channel CHANNEL under BLOCK, then ends it with END.
// Env: REDIS_PORT, PREFIX, CHANNEL, COUNT, BUFFER, END (complete | error | close).
import { BackpressureStrategy } from '@rxagents/streaming';
import { Redis } from 'ioredis';
import { z } from 'zod';
import { redisChannel } from '../../src';

const env = z
  .object({
    REDIS_PORT: z.coerce.number().int(),
    PREFIX: z.string(),
    CHANNEL: z.string(),
    COUNT: z.coerce.number().int(),
    BUFFER: z.coerce.number().int(),
    END: z.enum(['complete', 'error', 'close']),
  })
  .parse(process.env);
const redis = new Redis({ port: env.REDIS_PORT, host: '127.0.0.1' });
const channel = redisChannel<number>(redis, env.CHANNEL, {
  prefix: env.PREFIX,
  bufferSize: env.BUFFER,
  backpressure: BackpressureStrategy.BLOCK,
  offerTimeout: Infinity,
  pollMs: 10,
});
process.stdout.write('ready\n');
for (let n = 0; n < env.COUNT; n++) if (!(await channel.offer(n))) throw new Error(`item ${n} was dropped`);
if (env.END === 'error') await channel.error(new Error('the model went away'));
else if (env.END === 'close') await channel.close();
else await channel.complete();
redis.disconnect();
