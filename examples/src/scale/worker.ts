// A worker process of `pnpm demo scale`: serves the three debaters of the architecture debate from Redis
// until SIGTERM, and prints each turn's tokens as it streams them. Env: REDIS_URL, PREFIX, WORKER.
import { type Agent, stream } from '@rxagents/core';
import { serveAgent } from '@rxagents/redis';
import { Redis } from 'ioredis';
import { tap } from 'rxjs';
import { debateCast } from '../cast/debateCast';

const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = process.env.PREFIX ?? 'rxagents-demo';
const name = process.env.WORKER ?? `worker ${process.pid}`;
const redis = new Redis(url);

/** The debater, printing `[worker] id round: tokens...` as it streams them. */
function printing(agent: Agent): Agent {
  return {
    id: agent.id,
    chat: (input, { context, metadata }) => {
      const round = /Round (\d+)/.exec(input)?.[1] ?? '?';
      let first = true;
      return stream(agent, input, { ...(context === undefined ? {} : { context }), ...(metadata === undefined ? {} : { metadata }) }).pipe(
        tap({
          next: (token) => {
            process.stdout.write(first ? `[${name}] ${agent.id}, round ${round}: ${token}` : token);
            first = false;
          },
          complete: () => process.stdout.write('\n'),
          unsubscribe: () => process.stdout.write(' (stopped)\n'),
        }),
      );
    },
  };
}

const { debaters } = debateCast(60);
const workers = debaters.map((debater) => serveAgent(redis, printing(debater), { prefix, concurrency: 1, claimIdleMs: 1_500, leaseCheckMs: 200 }));
process.on('SIGTERM', () => {
  void Promise.all(workers.map((worker) => worker.drain())).then(() => {
    redis.disconnect();
    process.exit(0);
  });
});
process.stdout.write('ready\n');
