// A process of the multi-process choreography tests: runs the "review" choreography (fan-out + join + chain)
// on a shared run with the agents listed in HOSTS (the others remote), then writes what it saw to
// `${PREFIX}:test:results` and exits.
// Env: REDIS_PORT, PREFIX, RUN_ID, HOSTS (comma-separated agent ids), LEASE_MS, SLOW_MS (how long the
// interaction "w1" takes), FAIL (an interaction whose agent fails).
import { randomUUID } from 'node:crypto';
import { ChoreographyEngine, type StepResult } from '@rxagents/choreography';
import { defineAgent, type RunEvent } from '@rxagents/core';
import { Redis } from 'ioredis';
import { lastValueFrom, toArray } from 'rxjs';
import { z } from 'zod';
import { redisEventBus } from '../../src';
import { AGENT_IDS, reviewSpec } from './reviewSpec';

const env = z
  .object({
    REDIS_PORT: z.coerce.number().int(),
    PREFIX: z.string(),
    RUN_ID: z.string(),
    HOSTS: z.string(),
    LEASE_MS: z.coerce.number().int().default(1_000),
    SLOW_MS: z.coerce.number().int().default(0),
    FAIL: z.string().default(''),
  })
  .parse(process.env);
const redis = new Redis({ port: env.REDIS_PORT, host: '127.0.0.1' });
const key = (name: string) => `${env.PREFIX}:test:${name}`;

// Each agent says which process ran it; the task (the first line of its input) names the interaction.
const agent = (id: string) =>
  defineAgent(id, async (input: string, { signal }) => {
    const task = input.split('\n')[0] ?? '';
    // Each run of the agent writes a token of its own: a command ioredis sends again after a Redis restart
    // (it had run, its reply was lost) then counts once, as it happened once.
    const token = randomUUID();
    await redis.rpush(key(`started:${task}`), `${process.pid} ${token}`);
    const ms = task === 'w1' ? env.SLOW_MS : 10;
    await new Promise((resolve, reject) => {
      const timer = setTimeout(resolve, ms);
      signal.addEventListener('abort', () => (clearTimeout(timer), reject(signal.reason)), { once: true });
    });
    if (task === env.FAIL) throw new Error(`${task} failed`);
    await redis.sadd(key(`completed:${task}`), token);
    return `${task} by ${process.pid}`;
  });

async function main(): Promise<void> {
  const hosts = env.HOSTS.split(',').filter((id) => id !== '');
  const builder = ChoreographyEngine.builder().spec(reviewSpec()).timeout(60_000).logger({ warn: () => undefined });
  for (const id of AGENT_IDS) {
    if (hosts.includes(id)) builder.agent(id, agent(id));
    else builder.remoteAgent(id);
  }
  const bus = redisEventBus(redis, { runId: env.RUN_ID, prefix: env.PREFIX, claimLeaseMs: env.LEASE_MS, concurrency: 2 });
  const engine = builder.bus(bus).build();
  const events = lastValueFrom(engine.events$({ input: 'the topic' }).pipe(toArray()));
  process.stdout.write('ready\n');
  const all: RunEvent[] = await events;
  const steps: StepResult[] = await lastValueFrom(engine.steps$.pipe(toArray()));
  const termination = all.find((event) => event.type === 'termination');
  const end = all.at(-1);
  await redis.rpush(
    key('results'),
    JSON.stringify({
      pid: process.pid,
      steps: steps.map(({ interactionId, agentId, success, output, error }) => ({ interactionId, agentId, success, output, error: error?.message })),
      termination: termination?.type === 'termination' ? { decision: termination.decision, reason: termination.reason } : undefined,
      success: end?.type === 'run-end' ? end.success : undefined,
    }),
  );
  redis.disconnect();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
