// A worker process for the interrupt tests: serves the agent "asker", which asks a person, until SIGTERM.
// Env: REDIS_PORT, PREFIX. Each time it asks, it pushes its pid to `${PREFIX}:test:askers`.
import { askForApproval, askForInput, defineAgent } from '@rxagents/core';
import { Redis } from 'ioredis';
import { lastValueFrom } from 'rxjs';
import { z } from 'zod';
import { serveAgent } from '../../src';

const env = z.object({ REDIS_PORT: z.coerce.number().int(), PREFIX: z.string() }).parse(process.env);
const redis = new Redis({ port: env.REDIS_PORT, host: '127.0.0.1' });
const asked = () => redis.rpush(`${env.PREFIX}:test:askers`, String(process.pid));

// `days`: a number of days; `refund`: an approval; `code`: a string whose rule JSON Schema cannot say.
const asker = defineAgent('asker', async (input, { run }) => {
  if (input === 'refund') {
    const decision = lastValueFrom(askForApproval(run, 'refund', { customer: 'Ada', amount: 120 }));
    await asked();
    const { approved, reason } = await decision;
    return approved ? 'Refunded 120' : `No refund: ${reason ?? 'refused'}`;
  }
  if (input === 'code') {
    const code = lastValueFrom(askForInput(run, 'Your code?', { schema: z.string().refine((text) => text.startsWith('ok-'), 'must start with ok-') }));
    await asked();
    return `Code ${await code}`;
  }
  const days = lastValueFrom(askForInput(run, 'How many days?', { schema: z.number().int().min(1) }));
  await asked();
  return `A ${await days}-day plan`;
});

const worker = serveAgent(redis, asker, { prefix: env.PREFIX, claimIdleMs: 1_000, leaseCheckMs: 100, onError: () => undefined });
process.on('SIGTERM', () => {
  void worker.close().then(() => setTimeout(() => process.exit(0), 100));
});
process.stdout.write('ready\n');
