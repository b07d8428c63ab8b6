// A worker process of the redis-choreography bench: for each run id read on stdin, runs the fan-out
// choreography's "worker" interactions on a shared Redis run, then writes "done <runId>" on stdout.
// Env: REDIS_PORT, PREFIX, WIDTH, WAIT_MS.
import { createInterface } from 'node:readline';
import { ChoreographyEngine } from '@rxagents/choreography';
import { defineAgent } from '@rxagents/core';
import { redisEventBus } from '@rxagents/redis';
import { Redis } from 'ioredis';
import { map, timer } from 'rxjs';
import { fanOutSpec } from './redisChoreographySpec';

const port = Number(process.env['REDIS_PORT']);
const prefix = process.env['PREFIX'] ?? 'bench';
const width = Number(process.env['WIDTH']);
const waitMs = Number(process.env['WAIT_MS']);
const redis = new Redis({ port, host: '127.0.0.1' });
const worker = defineAgent('worker', () => timer(waitMs).pipe(map(() => 'ok')));
const spec = fanOutSpec(width);

createInterface({ input: process.stdin }).on('line', (runId) => {
  const engine = new ChoreographyEngine({ spec, agents: { worker }, bus: redisEventBus(redis, { runId, prefix }), timeout: 600_000, logger: { warn: () => undefined } });
  engine.execute().then(
    (result) => process.stdout.write(`done ${runId} ${result.stepResults.length}\n`),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
});
process.stdout.write('ready\n');
