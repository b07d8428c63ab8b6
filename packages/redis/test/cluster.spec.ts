import { randomUUID } from 'node:crypto';
import { ChoreographyEngine } from '@rxagents/choreography';
import { defineAgent, invoke, invoke$, newRunId, observeRun, stream } from '@rxagents/core';
import { BackpressureStrategy } from '@rxagents/streaming';
import type { Cluster } from 'ioredis';
import { firstValueFrom, from, Observable, toArray } from 'rxjs';
import { redisChannel, redisEventBus, remoteAgent } from '../src';
import { keyedCallId } from '../src/internal/keyedCallId';
import { pacedReader } from './support/channelTesting';
import { describeRedisCluster } from './support/describeRedisCluster';
import { AGENT_IDS, reviewSpec } from './support/reviewSpec';
import { waitUntil } from './support/waitUntil';
import { servedPerTest } from './support/servedPerTest';
import { waitingAgent } from './support/waitingAgent';

jest.setTimeout(60_000);

/** Every key under `prefix`, read with SCAN on each master (a cluster has no one keyspace to scan). */
async function keysUnder(cluster: Cluster, prefix: string): Promise<string[]> {
  const keys: string[] = [];
  for (const node of cluster.nodes('master')) {
    let cursor = '0';
    do {
      const [next, found] = await node.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1_000);
      cursor = next;
      keys.push(...found);
    } while (cursor !== '0');
  }
  return keys;
}

/** The keys grouped by their hash tag (the text between the first `{` and the next `}`). */
function byTag(keys: readonly string[]): Map<string, string[]> {
  const groups = new Map<string, string[]>();
  for (const key of keys) {
    const tag = /\{([^}]+)\}/.exec(key)?.[1];
    if (tag === undefined) throw new Error(`key without a hash tag: ${key}`);
    groups.set(tag, [...(groups.get(tag) ?? []), key]);
  }
  return groups;
}

describeRedisCluster('@rxagents/redis on a Redis Cluster', (cluster) => {
  const served = servedPerTest('cl');
  const serve = served.serve;
  /** The slot of each key, from the cluster itself (`CLUSTER KEYSLOT`). */
  const slotsOf = async (keys: readonly string[]): Promise<Set<number>> => {
    const node = cluster().node(cluster().ports[0] as number);
    return new Set(await Promise.all(keys.map(async (key) => Number(await node.call('CLUSTER', 'KEYSLOT', key)))));
  };

  it('serves remote agents whose call streams live on different nodes, each call’s keys in one slot', async () => {
    // Agent ids chosen so that their call streams are served by at least two of the three masters.
    const ids: string[] = [];
    const ports = new Set<number>();
    for (let n = 0; ids.length < 3 || ports.size < 2; n++) {
      const id = `agent-${n}`;
      const port = await cluster().portOf(`${served.prefix}:agent:{${id}}:calls`);
      if (ids.length < 3 || !ports.has(port)) (ids.push(id), ports.add(port));
    }
    expect(ports.size).toBeGreaterThanOrEqual(2);
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    let running = 0;
    for (const id of ids) {
      serve(
        cluster().client(),
        defineAgent(id, async (input) => {
          running++;
          await released;
          return `${id} says ${input}`;
        }),
      );
    }
    const caller = cluster().client();
    const replies = Promise.all(ids.flatMap((id) => [invoke(remoteAgent(caller, id, { prefix: served.prefix }), 'one'), invoke(remoteAgent(caller, id, { prefix: served.prefix }), 'two')]));
    await waitUntil('every call runs on its worker', () => running === ids.length * 2);
    const groups = byTag(await keysUnder(caller, served.prefix));
    // One group per agent (its call stream) and one per call (reply stream, lease, attempt counter, the entry that took it).
    expect(groups.size).toBe(ids.length + ids.length * 2);
    for (const keys of groups.values()) expect((await slotsOf(keys)).size).toBe(1);
    const callGroups = [...groups.values()].filter((keys) => keys.some((key) => key.endsWith(':lease')));
    expect(callGroups).toHaveLength(ids.length * 2);
    for (const keys of callGroups) expect(keys.map((key) => key.split(':').at(-1)).sort()).toEqual(['attempts', 'entry', 'lease', 'reply']);
    release();
    expect(await replies).toEqual(ids.flatMap((id) => [`${id} says one`, `${id} says two`]));
  });

  it('streams chunks and the remote run events through the cluster', async () => {
    serve(cluster().client(), defineAgent('writer', () => new Observable<string>((s) => (['Once ', 'upon ', 'a time'].forEach((c) => s.next(c)), s.complete()))));
    const remote = remoteAgent(cluster().client(), 'writer', { prefix: served.prefix });
    expect(await firstValueFrom(stream(remote, 'go').pipe(toArray()))).toEqual(['Once ', 'upon ', 'a time']);
    const events = await firstValueFrom(observeRun('cluster', 'x', (run) => invoke$(remote, 'x', { run })).pipe(toArray()));
    expect(events.at(-1)).toMatchObject({ type: 'run-end', success: true, output: 'Once upon a time' });
  });

  it('sends a call with an idempotency key once for two callers, and answers a later one from the kept reply', async () => {
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    let runs = 0;
    serve(
      cluster().client(),
      defineAgent('keyed', async (input) => {
        runs++;
        await released;
        return `keyed says ${input}`;
      }),
    );
    const chat = (client: Cluster) =>
      firstValueFrom(from(remoteAgent(client, 'keyed', { prefix: served.prefix }).chat('hi', { signal: new AbortController().signal, idempotencyKey: 'run-c:run/0' })).pipe(toArray()));
    const replies = Promise.all([chat(cluster().client()), chat(cluster().client())]);
    await waitUntil('the call runs', () => runs === 1);
    release();
    expect(await replies).toEqual([['keyed says hi'], ['keyed says hi']]);
    expect(await chat(cluster().client())).toEqual(['keyed says hi']);
    expect(runs).toBe(1);
  });

  it('runs a call with an idempotency key whose first caller died after storing its lease and before adding the call', async () => {
    serve(cluster().client(), defineAgent('keyed', async (input) => `keyed says ${input}`));
    const caller = cluster().client();
    // What such a caller leaves: the call's lease, and no call entry.
    await caller.set(`${served.prefix}:call:{${keyedCallId('keyed', 'run-d:run/0')}}:lease`, '1', 'PX', 60_000);
    const reply = firstValueFrom(from(remoteAgent(caller, 'keyed', { prefix: served.prefix }).chat('hi', { signal: new AbortController().signal, idempotencyKey: 'run-d:run/0' })).pipe(toArray()));
    expect(await reply).toEqual(['keyed says hi']);
  });

  it("aborts the agent's signal on the worker when the caller unsubscribes", async () => {
    const slow = waitingAgent('slow');
    serve(cluster().client(), slow.agent);
    const caller = cluster().client();
    const subscription = stream(remoteAgent(caller, 'slow', { prefix: served.prefix }), 'x').subscribe({ error: () => undefined });
    await waitUntil('the worker runs the call', () => slow.started === 1);
    subscription.unsubscribe();
    await waitUntil('the worker aborts the call', () => slow.aborted === 1);
    await waitUntil('the call left no keys but the agent’s call stream', async () => (await keysUnder(caller, served.prefix)).length === 1);
    expect(await keysUnder(caller, served.prefix)).toEqual([`${served.prefix}:agent:{slow}:calls`]);
  });

  it('runs a call again on another worker (XAUTOCLAIM) when its worker stopped confirming it, with only the new attempt’s text', async () => {
    let firstWorkerChunks = 0;
    const firstWorker = serve(cluster().client(), defineAgent('teller', () => new Observable<string>((s) => (s.next('first attempt '), void firstWorkerChunks++))));
    const remote = remoteAgent(cluster().client(), 'teller', { prefix: served.prefix });
    const events = firstValueFrom(observeRun('restart', 'x', (run) => invoke$(remote, 'x', { run })).pipe(toArray()));
    await waitUntil('the first worker streams', () => firstWorkerChunks === 1);
    await firstWorker.close(); // leaves the entry pending, as a crash does
    serve(cluster().client(), defineAgent('teller', async () => 'second attempt'));
    const all = await events;
    expect(all.at(-1)).toMatchObject({ type: 'run-end', success: true, output: 'second attempt' });
    expect(all.filter((e) => e.type === 'custom' && e.name === 'call-restarted')).toMatchObject([{ data: { agentId: 'teller', attempt: 2 } }]);
  });

  it('carries a BLOCK channel between two cluster clients, in order, with all its keys in one slot', async () => {
    const id = randomUUID();
    const producer = redisChannel<number>(cluster().client(), id, { prefix: served.prefix, backpressure: BackpressureStrategy.BLOCK, bufferSize: 3, offerTimeout: Infinity, pollMs: 5 });
    const consumerClient = cluster().client();
    const consumer = redisChannel<number>(consumerClient, id, { prefix: served.prefix, pollMs: 5 });
    const reader = pacedReader<number>();
    const completed = new Promise<void>((resolve) => consumer.subscribe({ next: reader.handler, complete: resolve }));
    await waitUntil('the consumer is registered', async () => (await consumer.sharedMetrics()).subscriberCount === 1);
    const offers = Promise.all(Array.from({ length: 20 }, (_, n) => producer.offer(n)));
    await waitUntil('the consumer holds the first item', () => reader.seen.length === 1);
    const keys = await keysUnder(consumerClient, served.prefix);
    expect(byTag(keys).size).toBe(1);
    expect(keys.map((key) => key.slice(`${served.prefix}:channel:{${id}}:`.length).replace(/^lease:.*/, 'lease:')).sort()).toEqual(['consumers', 'items', 'lease:', 'shared']);
    expect((await slotsOf(keys)).size).toBe(1);
    // The producer stays within bufferSize of the consumer, which holds its first item.
    expect((await producer.sharedMetrics()).bufferUsed).toBeLessThanOrEqual(3);
    reader.releaseAll();
    expect(await offers).toEqual(Array.from({ length: 20 }, () => true));
    await producer.complete();
    await completed;
    expect(reader.seen).toEqual(Array.from({ length: 20 }, (_, n) => n));
    expect(await consumer.sharedMetrics()).toMatchObject({ emitted: 20, delivered: 20, dropped: 0, completed: true });
  });

  it('carries a DROP_OLDEST channel between two cluster clients, counting what a slow consumer missed', async () => {
    const id = randomUUID();
    const producer = redisChannel<number>(cluster().client(), id, { prefix: served.prefix, bufferSize: 2, pollMs: 5 });
    const consumer = redisChannel<number>(cluster().client(), id, { prefix: served.prefix, pollMs: 5 });
    const reader = pacedReader<number>();
    const completed = new Promise<void>((resolve) => consumer.subscribe({ next: reader.handler, complete: resolve }));
    await waitUntil('the consumer is registered', async () => (await consumer.sharedMetrics()).subscriberCount === 1);
    expect(await producer.offer(0)).toBe(true);
    await waitUntil('the consumer holds the first item', () => reader.seen.length === 1);
    for (let n = 1; n <= 10; n++) expect(await producer.offer(n)).toBe(true);
    await producer.complete();
    reader.releaseAll();
    await completed;
    // The stream kept the newest bufferSize items; the consumer counts the ones trimmed before it read them.
    expect(reader.seen).toEqual([0, 9, 10]);
    expect(await consumer.sharedMetrics()).toMatchObject({ emitted: 11, delivered: 3, dropped: 8, completed: true });
  });

  it('shares a choreography run between two engines on two cluster clients, every step once, the run’s keys in one slot', async () => {
    const runId = newRunId();
    const runs: string[] = [];
    const agents = () =>
      Object.fromEntries(
        AGENT_IDS.map((id) => [
          id,
          defineAgent(id, async (input: string) => {
            runs.push(id);
            return `${input.split('\n')[0]} done`;
          }),
        ]),
      );
    const client = cluster().client();
    const engines = [client, cluster().client()].map((redis) => new ChoreographyEngine({ spec: reviewSpec(), agents: agents(), bus: redisEventBus(redis, { runId, prefix: served.prefix }), logger: { warn: () => undefined } }));
    const results = await Promise.all(engines.map((engine) => engine.execute({ input: 'x' })));
    for (const result of results) expect(result).toMatchObject({ success: true, timedOut: false, pending: [] });
    expect(results[0]?.stepResults).toHaveLength(7);
    expect(results[1]?.stepResults).toEqual(results[0]?.stepResults);
    expect(runs).toHaveLength(7);
    const keys = await keysUnder(client, served.prefix);
    expect([...byTag(keys).keys()]).toEqual([runId]);
    expect((await slotsOf(keys)).size).toBe(1);
  });
});
