// Engines in one process, each with its own connections and its own bus: the same code (redisEventBus,
// its claims and its reader, CoordinatedRun) as engines in separate processes, without the spawn.
import { randomUUID } from 'node:crypto';
import { ChoreographyEngine, type ChoreographyResult } from '@rxagents/choreography';
import { type Agent, defineAgent, newRunId } from '@rxagents/core';
import { Redis } from 'ioredis';
import { type RedisEventBus, redisEventBus } from '../src';
import { type CuttingProxy, startCuttingProxy } from './support/cuttingProxy';
import { describeRedis } from './support/describeRedis';
import { AGENT_IDS, reviewSpec } from './support/reviewSpec';
import { waitUntil } from './support/waitUntil';
import { closeClient } from '../src/internal/closeClient';

jest.setTimeout(60_000);

const silent = { warn: (): void => undefined };
const TASKS = ['plan', 'w1', 'w2', 'w3', 'w4', 'merge', 'review'];

/** Agents that note each start and each completion of a task (the first line of their input), taking `ms` each. */
function countingAgents(ms: number) {
  const started = new Map<string, number>();
  const completed = new Map<string, number>();
  const agent = (id: string, engine: string): Agent =>
    defineAgent(id, async (input: string, { signal }) => {
      const task = input.split('\n')[0] ?? '';
      started.set(task, (started.get(task) ?? 0) + 1);
      await new Promise((resolve, reject) => {
        const timer = setTimeout(resolve, ms);
        signal.addEventListener('abort', () => (clearTimeout(timer), reject(signal.reason)), { once: true });
      });
      completed.set(task, (completed.get(task) ?? 0) + 1);
      return `${task} by ${engine}`;
    });
  const hosting = (engine: string, hosts: readonly string[]) => Object.fromEntries(hosts.map((id) => [id, agent(id, engine)]));
  return { started, completed, hosting };
}

/** What a run's steps say, whichever engine reports them: the step order is the shared log's. */
const stepsOf = (result: ChoreographyResult) => result.stepResults.map(({ interactionId, success, output }) => ({ interactionId, success, output }));

/** Every engine ends with the run's seven steps, the same in each, and every task ran exactly once. */
function expectOneRun(results: readonly ChoreographyResult[], counts: ReturnType<typeof countingAgents>): void {
  for (const result of results) {
    expect(result).toMatchObject({ success: true, timedOut: false, completedCount: 7, pending: [] });
    expect(stepsOf(result)).toEqual(stepsOf(results[0] as ChoreographyResult));
  }
  expect([...stepsOf(results[0] as ChoreographyResult).map((step) => step.interactionId)].sort()).toEqual([...TASKS].sort());
  for (const task of TASKS) {
    expect([task, counts.started.get(task)]).toEqual([task, 1]);
    expect([task, counts.completed.get(task)]).toEqual([task, 1]);
  }
}

describeRedis('a shared choreography run across a Redis restart', (server) => {
  let prefix: string;
  let runId: string;
  const engine = (client: Redis, agents: Record<string, Agent>, options: { readonly claimLeaseMs?: number } = {}): { engine: ChoreographyEngine; bus: RedisEventBus } => {
    const bus = redisEventBus(client, { runId, prefix, onError: () => undefined, ...options });
    const remote = AGENT_IDS.filter((id) => agents[id] === undefined);
    return { engine: new ChoreographyEngine({ spec: reviewSpec(), agents, remoteAgents: remote, bus, logger: silent, timeout: 20_000 }), bus };
  };
  beforeEach(() => {
    prefix = `busr-${randomUUID()}`;
    runId = newRunId();
  });

  it('runs every interaction exactly once and ends with the same steps in three engines while Redis restarts twice (AOF on)', async () => {
    const counts = countingAgents(300);
    const engines = [
      engine(server().client(), counts.hosting('a', ['planner', 'worker']), { claimLeaseMs: 3_000 }),
      engine(server().client(), counts.hosting('b', ['worker', 'editor']), { claimLeaseMs: 3_000 }),
      engine(server().client(), counts.hosting('c', ['worker', 'reviewer']), { claimLeaseMs: 3_000 }),
    ];
    const results = Promise.all(engines.map(({ engine: each }) => each.execute({ input: 'the topic' })));
    // Once while the fan-out runs, once while the join runs.
    await waitUntil('the workers have started', () => (counts.started.get('w1') ?? 0) > 0);
    await server().restart();
    await waitUntil('merge has started', () => (counts.started.get('merge') ?? 0) > 0);
    await server().restart();
    expectOneRun(await results, counts);
  });

  it('loses no write while Redis is down for longer than ioredis queues a command', async () => {
    const counts = countingAgents(300);
    // Commands fail after one reconnection attempt, so the outage fails some of the bus's writes.
    const clients = [0, 1, 2].map(() => new Redis({ port: server().port, host: '127.0.0.1', maxRetriesPerRequest: 1 }));
    const errors: unknown[] = [];
    const bus = (client: Redis) => redisEventBus(client, { runId, prefix, claimLeaseMs: 20_000, onError: (error) => errors.push(error) });
    const hosts = [['planner', 'worker'], ['worker', 'editor'], ['worker', 'reviewer']];
    const engines = clients.map((client, index) => {
      const agents = counts.hosting(String(index), hosts[index] as string[]);
      return new ChoreographyEngine({ spec: reviewSpec(), agents, remoteAgents: AGENT_IDS.filter((id) => agents[id] === undefined), bus: bus(client), logger: silent, timeout: 40_000 });
    });
    const results = Promise.all(engines.map((each) => each.execute({ input: 'the topic' })));
    await waitUntil('the workers have started', () => (counts.started.get('w1') ?? 0) > 0);
    await server().restart(2_000);
    try {
      expectOneRun(await results, counts);
      expect(errors.some((error) => error instanceof Error && /max retries/i.test(error.message))).toBe(true);
    } finally {
      for (const client of clients) closeClient(client);
    }
  });

  describe('when a reply is lost and ioredis sends the command again', () => {
    let proxy: CuttingProxy;
    let cut: Redis;
    let redis: Redis;
    beforeEach(async () => {
      proxy = await startCuttingProxy(server().port);
      cut = new Redis({ port: proxy.port, host: '127.0.0.1' });
      redis = server().client();
    });
    afterEach(async () => {
      cut.disconnect();
      await proxy.close();
    });
    const claimsHeldBy = async (owner: string): Promise<number> => {
      let held = 0;
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:run:{${runId}}:claim:*`, 'COUNT', 1_000);
        cursor = next;
        for (const key of keys) if ((await redis.get(key)) === owner) held += 1;
      } while (cursor !== '0');
      return held;
    };

    it('an engine whose claims Redis stored before the connection broke runs them, once (the claims outlive the run)', async () => {
      const counts = countingAgents(50);
      // The only engine hosting "worker" talks to Redis through the proxy; a long lease means a claim it
      // lost to its own resend would hold the fan-out past the run's timeout.
      const lease = { claimLeaseMs: 60_000 };
      const workers = engine(cut, counts.hosting('a', ['worker']), lease);
      const others = engine(server().client(), counts.hosting('b', ['planner', 'editor', 'reviewer']), lease);
      const events = `${prefix}:run:{${runId}}:events`;
      const first = others.engine.execute({ input: 'the topic' });
      await waitUntil('the run has started', async () => (await redis.xlen(events)) > 0);
      const lost = proxy.cutAfter('SET', async () => (await claimsHeldBy(workers.bus.owner)) > 0);
      const results = Promise.all([first, workers.engine.execute({ input: 'the topic' })]);
      await lost;
      expectOneRun(await results, counts);
    });

    it('an event whose XADD Redis stored before the connection broke reaches every engine once', async () => {
      const events = `${prefix}:run:{${runId}}:events`;
      const reader = redisEventBus(server().client(), { runId, prefix });
      const received: string[] = [];
      reader.events$.subscribe((event) => received.push(event.name));
      const writer = redisEventBus(cut, { runId, prefix });
      writer.publish({ name: 'first' });
      await waitUntil('the first event is read', () => received.length === 1);
      const lost = proxy.cutAfter('XADD', async () => (await redis.xlen(events)) > 1);
      writer.publish({ name: 'second' });
      await lost;
      writer.publish({ name: 'third' });
      await waitUntil('the third event is read', () => received.includes('third'));
      reader.close();
      writer.close();
      expect(received).toEqual(['first', 'second', 'third']);
    });

    it('an engine whose start Redis stored before the connection broke still publishes the initial events', async () => {
      const counts = countingAgents(50);
      const only = engine(cut, counts.hosting('a', [...AGENT_IDS]));
      const started = `${prefix}:run:{${runId}}:started`;
      const lost = proxy.cutAfter('SET', async () => (await redis.exists(started)) === 1);
      const result = only.engine.execute({ input: 'the topic' });
      await lost;
      expectOneRun([await result], counts);
    });
  });
});
