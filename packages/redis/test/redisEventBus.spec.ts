import { randomUUID } from 'node:crypto';
import { ChoreographyEngine, type ChoreographyEvent, ChoreographySpec, detectLivelock, type LivelockViolation } from '@rxagents/choreography';
import { ConfigError, defineAgent, newRunId } from '@rxagents/core';
import { Redis } from 'ioredis';
import { catchError, EMPTY, firstValueFrom, lastValueFrom, map, NEVER, take, toArray } from 'rxjs';
import { redisEventBus } from '../src';
import { describeRedis } from './support/describeRedis';
import { waitUntil } from './support/waitUntil';
import { RUN_PROTOCOL_VERSION } from '../src/internal/runProtocol';
import { AGENT_IDS, reviewSpec } from './support/reviewSpec';

jest.setTimeout(30_000);

const silent = { warn: (): void => undefined };
const echoAgents = () => Object.fromEntries(AGENT_IDS.map((id) => [id, defineAgent(id, async (input: string) => `${input.split('\n')[0]} done`)]));

describe('redisEventBus options', () => {
  it('refuses a run id that would break its keys’ hash tag, and a lease too short to renew, naming the field', () => {
    // Never connects: every call below is refused before a command is sent.
    const redis = new Redis({ lazyConnect: true });
    expect(() => redisEventBus(redis, { runId: 'a{b}' })).toThrow(ConfigError);
    expect(() => redisEventBus(redis, { runId: 'a{b}' })).toThrow(/runId must not contain \{ or \}/);
    expect(() => redisEventBus(redis, { claimLeaseMs: 10 })).toThrow(/claimLeaseMs must be at least 30/);
    expect(() => redisEventBus(redis, { concurency: 2 } as never)).toThrow(ConfigError);
  });
});

describeRedis('redisEventBus', (server) => {
  let prefix: string;
  let runId: string;
  let redis: Redis;
  const bus = (options: { readonly onError?: (error: unknown) => void; readonly claimLeaseMs?: number; readonly concurrency?: number } = {}) =>
    redisEventBus(server().client(), { runId, prefix, ...options });
  const scanAll = async (pattern: string): Promise<string[]> => {
    const keys: string[] = [];
    let cursor = '0';
    do {
      const [next, found] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1_000);
      cursor = next;
      keys.push(...found);
    } while (cursor !== '0');
    return keys;
  };
  beforeEach(() => {
    prefix = `bus-${randomUUID()}`;
    runId = newRunId();
    redis = server().client();
  });

  it('generates an unguessable run id when none is given', () => {
    const generated = redisEventBus(redis, { prefix });
    expect(generated.runId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    generated.close();
  });

  it('dead-letters malformed entries once with the reason, reports them, and runs on', async () => {
    const events = `${prefix}:run:{${runId}}:events`;
    await redis.xadd(events, '*', 'entry', '{not json');
    await redis.xadd(events, '*', 'entry', JSON.stringify({ v: 1, kind: 'event', by: 'x', event: { name: '' } }));
    await redis.xadd(events, '*', 'other', 'field');
    const reported: unknown[] = [];
    const engines = [0, 1].map(() => new ChoreographyEngine({ spec: reviewSpec(), agents: echoAgents(), bus: bus({ onError: (error) => reported.push(error) }), logger: silent }));
    const results = await Promise.all(engines.map((engine) => engine.execute({ input: 'x' })));
    for (const result of results) expect(result).toMatchObject({ success: true, timedOut: false, pending: [] });
    expect(results[1]?.stepResults).toEqual(results[0]?.stepResults);
    expect(results[0]?.stepResults).toHaveLength(7);
    const dead = await redis.xrange(`${prefix}:run:{${runId}}:dead`, '-', '+');
    const reasons = dead.map(([, fields]) => fields[1]);
    expect(reasons).toEqual([
      expect.stringContaining('field "entry" is not JSON'),
      expect.stringContaining('field "entry" fails the schema'),
      'missing field "entry"',
    ]);
    // Each of the two engines reported each malformed entry.
    expect(reported).toHaveLength(6);
  });

  it('runs on when a malformed entry carries the append name of an entry still to come (the initial event)', async () => {
    const events = `${prefix}:run:{${runId}}:events`;
    await redis.xadd(events, '*', 'entry', '{not json', 'append', 'initial:0');
    const reported: unknown[] = [];
    const engine = new ChoreographyEngine({ spec: reviewSpec(), agents: echoAgents(), bus: bus({ onError: (error) => reported.push(error) }), logger: silent, timeout: 10_000 });
    const result = await engine.execute({ input: 'x' });
    expect(result).toMatchObject({ success: true, timedOut: false, pending: [] });
    expect(result.stepResults).toHaveLength(7);
    expect(reported).toHaveLength(1);
  });

  it('gives a process that joins after the end the whole run: the same steps and result', async () => {
    const first = new ChoreographyEngine({ spec: reviewSpec(), agents: echoAgents(), bus: bus(), logger: silent });
    const done = await first.execute({ input: 'x' });
    const late = new ChoreographyEngine({ spec: reviewSpec(), remoteAgents: [...AGENT_IDS], bus: bus(), logger: silent });
    const seen = await late.execute({ input: 'ignored: the run has started' });
    expect(seen.stepResults).toEqual(done.stepResults);
    expect(seen).toMatchObject({ success: true, timedOut: false, pending: [] });
    const busEvents: ChoreographyEvent[] = await lastValueFrom(late.busEvents$.pipe(toArray()));
    expect(busEvents[0]).toEqual({ name: 'start', input: 'x' });
  });

  it('runs at most `concurrency` interactions at once in a process', async () => {
    let running = 0;
    let most = 0;
    const worker = defineAgent('worker', async () => {
      running += 1;
      most = Math.max(most, running);
      await new Promise((resolve) => setTimeout(resolve, 20));
      running -= 1;
      return 'ok';
    });
    const engine = new ChoreographyEngine({ spec: reviewSpec(), agents: { ...echoAgents(), worker }, bus: bus({ concurrency: 1 }), logger: silent });
    expect((await engine.execute()).completedCount).toBe(7);
    expect(most).toBe(1);
  });

  it('aborts an agent whose claim another process took, and runs it again once the claim is free', async () => {
    const started: string[] = [];
    const aborted: string[] = [];
    const planner = defineAgent('planner', async (_input: string, { signal }) => {
      started.push('plan');
      signal.addEventListener('abort', () => aborted.push('plan'));
      await new Promise((resolve) => setTimeout(resolve, 700));
      signal.throwIfAborted();
      return 'a plan';
    });
    const engine = new ChoreographyEngine({ spec: reviewSpec(), agents: { ...echoAgents(), planner }, bus: bus({ claimLeaseMs: 300 }), logger: silent });
    const done = engine.execute();
    await waitUntil('plan has started', () => started.length === 1);
    const [claim] = await scanAll(`${prefix}:run:{${runId}}:claim:*:plan`);
    // As if this process had frozen past its lease and another had taken the claim for 400 ms.
    await redis.set(claim as string, 'another-process', 'PX', 400);
    const result = await done;
    expect(aborted).toEqual(['plan']);
    expect(started).toEqual(['plan', 'plan']);
    expect(result.stepResults.filter((step) => step.interactionId === 'plan')).toEqual([expect.objectContaining({ success: true, output: 'a plan' })]);
    expect(result.completedCount).toBe(7);
  });

  it('starts the run when the process that took its start died before publishing the initial events, once that start’s lease runs out', async () => {
    // What a process that died between taking the start and storing the initial events leaves: its lease, no events.
    const started = `${prefix}:run:{${runId}}:started`;
    await redis.set(started, 'a-dead-process', 'PX', 300);
    const engine = new ChoreographyEngine({ spec: reviewSpec(), agents: echoAgents(), bus: bus({ claimLeaseMs: 300 }), logger: silent, timeout: 8_000 });
    const result = await engine.execute({ input: 'x' });
    expect(result).toMatchObject({ success: true, timedOut: false, completedCount: 7, pending: [] });
    expect(await redis.get(started)).toBe('done');
  });

  it('adds no initial event twice when it takes over the start from a process that died after storing some of them', async () => {
    const spec = ChoreographySpec.builder('two-starts').initialEvent('a').initialEvent('b').interaction('one', 'user', 'first', 'a', null, 'one').interaction('two', 'user', 'second', 'b', null, 'two').build();
    const calls: string[] = [];
    const agents = { first: defineAgent('first', async () => (calls.push('one'), 'ok')), second: defineAgent('second', async () => (calls.push('two'), 'ok')) };
    // The dead process stored its first initial event (named as every bus names it) and not the second.
    await redis.set(`${prefix}:run:{${runId}}:started`, 'a-dead-process', 'PX', 300);
    const entry = { v: RUN_PROTOCOL_VERSION, kind: 'event', by: 'a-dead-process', event: { name: 'a', input: 'x' } };
    await redis.xadd(`${prefix}:run:{${runId}}:events`, '*', 'entry', JSON.stringify(entry), 'append', 'initial:0');
    const engine = new ChoreographyEngine({ spec, agents, bus: bus({ claimLeaseMs: 300 }), logger: silent, timeout: 8_000 });
    const busEvents = lastValueFrom(engine.busEvents$.pipe(toArray()));
    const result = await engine.execute({ input: 'y' });
    expect(result).toMatchObject({ success: true, timedOut: false, completedCount: 2 });
    expect(calls.sort()).toEqual(['one', 'two']);
    expect((await busEvents).map(({ name, input }) => [name, input])).toEqual([
      ['a', 'x'],
      ['b', 'y'],
    ]);
  });

  it('publishes the initial events once when several processes start the run at once', async () => {
    const engines = [0, 1, 2].map(() => new ChoreographyEngine({ spec: reviewSpec(), agents: echoAgents(), bus: bus({ claimLeaseMs: 300 }), logger: silent }));
    const results = await Promise.all(engines.map((engine, index) => engine.execute({ input: `input ${index}` })));
    for (const result of results) expect(result).toMatchObject({ success: true, timedOut: false, completedCount: 7 });
    const entries = await redis.xrange(`${prefix}:run:{${runId}}:events`, '-', '+');
    const initial = entries.map(([, fields]) => JSON.parse(fields[1] as string) as { kind: string; event?: ChoreographyEvent }).filter((entry) => entry.kind === 'event' && entry.event?.interactionId === undefined);
    expect(initial).toHaveLength(1);
  });

  it('lets a process that runs no agent detect a livelock from the steps run elsewhere', async () => {
    const stuck = Object.fromEntries(AGENT_IDS.map((id) => [id, defineAgent(id, async () => 'please try again')]));
    const runner = new ChoreographyEngine({ spec: reviewSpec(), agents: stuck, bus: bus(), logger: silent });
    const watcher = new ChoreographyEngine({ spec: reviewSpec(), remoteAgents: [...AGENT_IDS], bus: bus(), logger: silent });
    const violations: Promise<LivelockViolation[]> = lastValueFrom(
      watcher.steps$.pipe(
        map((step) => ({ kind: 'message' as const, agentId: step.agentId, message: step.output ?? '' })),
        detectLivelock({ repeatedMessageThreshold: 3 }),
        catchError(() => EMPTY),
        toArray(),
      ),
    );
    await Promise.all([runner.execute({ input: 'x' }), watcher.execute()]);
    expect((await violations).map((violation) => [violation.type, violation.agentId])).toContainEqual(['REPEATED_MESSAGE', 'worker']);
  });

  it('ends the run in every process when one process’s timeout passes', async () => {
    const stuck = defineAgent('planner', () => NEVER);
    const hurried = new ChoreographyEngine({ spec: reviewSpec(), agents: { planner: stuck }, remoteAgents: ['worker', 'editor', 'reviewer'], bus: bus(), logger: silent, timeout: 300 });
    const patient = new ChoreographyEngine({ spec: reviewSpec(), remoteAgents: [...AGENT_IDS], bus: bus(), logger: silent, timeout: 60_000 });
    const [short, long] = await Promise.all([hurried.execute({ input: 'x' }), patient.execute()]);
    for (const result of [short, long]) {
      expect(result).toMatchObject({ success: false, timedOut: true, pending: ['w1', 'w2', 'w3', 'w4', 'merge', 'review'] });
      expect(result.stepResults.map((step) => [step.interactionId, step.success])).toEqual([['plan', false]]);
    }
  });

  it('keeps every key of the run under its hash tag, with a time to live', async () => {
    const engine = new ChoreographyEngine({ spec: reviewSpec(), agents: echoAgents(), bus: bus(), logger: silent });
    await engine.execute();
    const keys = await scanAll(`${prefix}:*`);
    expect(keys.length).toBeGreaterThan(2);
    for (const key of keys) {
      expect(key.startsWith(`${prefix}:run:{${runId}}:`)).toBe(true);
      expect(await redis.pttl(key)).toBeGreaterThan(0);
    }
  });

  it('carries events published by code outside the spec to every engine', async () => {
    const shared = bus();
    const received = firstValueFrom(shared.events$.pipe(take(2), toArray()));
    const outside = bus();
    outside.publish({ name: 'approved', output: 'yes' });
    outside.publish({ name: 'noted' });
    expect(await received).toEqual([{ name: 'approved', output: 'yes' }, { name: 'noted' }]);
    shared.close();
    outside.close();
  });

  it.each([null, undefined, 42, {}, { name: 'noted', output: 7 }])('refuses to publish %p with a ConfigError, as the in-memory bus does', (bad) => {
    const outside = bus();
    expect(() => outside.publish(bad as never)).toThrow(ConfigError);
    expect(() => outside.publish(bad as never)).toThrow(/^redisEventBus.publish event: /);
    outside.close();
  });

  it('waits before reading again after an XREAD reply it cannot parse, instead of spinning', async () => {
    // With `replyMapping: 'resp3'` ioredis gives XREAD's RESP3 map as a plain object, a shape the bus refuses.
    // The bus refuses such a client up front, so the client is switched after that check and before the
    // bus makes its reading connection (a copy of the client's options) on the first subscription.
    const mapped = server().client();
    await redis.xadd(`${prefix}:run:{${runId}}:events`, '*', 'entry', '{}');
    const reported: unknown[] = [];
    const refusing = redisEventBus(mapped, { runId, prefix, onError: (error) => reported.push(error) });
    (mapped.options as { replyMapping: string }).replyMapping = 'resp3';
    const reading = refusing.events$.subscribe();
    try {
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      // Read at once, then again a second later: not once per round trip.
      expect(reported.length).toBeGreaterThanOrEqual(1);
      expect(reported.length).toBeLessThanOrEqual(3);
      expect(String(reported[0])).toMatch(/unexpected XREAD reply/);
    } finally {
      reading.unsubscribe();
      refusing.close();
    }
  });

  it('reads every entry of two buses given the same owner (a process restarted under its old name)', async () => {
    const reader = bus();
    const names: string[] = [];
    const reading = reader.events$.subscribe((event) => names.push(event.name));
    const before = redisEventBus(server().client(), { runId, prefix, owner: 'pod-0' });
    const after = redisEventBus(server().client(), { runId, prefix, owner: 'pod-0' });
    try {
      before.publish({ name: 'first' });
      await waitUntil('the first event is read', () => names.length === 1);
      before.close();
      after.publish({ name: 'second' });
      after.publish({ name: 'third' });
      await waitUntil('the later events are stored', async () => (await redis.xlen(`${prefix}:run:{${runId}}:events`)) === 3);
      await waitUntil('every event is read', () => names.length === 3);
      expect(names).toEqual(['first', 'second', 'third']);
    } finally {
      reading.unsubscribe();
      for (const closing of [reader, before, after]) closing.close();
    }
  });
});
