import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { ConfigError, RunLeasedError, RunStoreError } from '@rxagents/core';
import { MalformedRunEntryError, RedisRunStore } from '../src';
import { runIndexKey, runStoreKeys } from '../src/internal/runStoreKeys';
import { delta, describeRunStore, end, readAll, start } from '../../core/test/support/runStoreContract';
import { startCuttingProxy } from './support/cuttingProxy';
import { describeRedis } from './support/describeRedis';
import { describeRedisCluster } from './support/describeRedisCluster';
import { killProcess, spawnProcess } from './support/spawnProcess';
import { waitUntil } from './support/waitUntil';

jest.setTimeout(60_000);

describeRedis('RedisRunStore', (server) => {
  describeRunStore('redis', async () => ({ store: new RedisRunStore(server().client(), { prefix: `rs-${randomUUID()}` }), advance: (ms) => new Promise((resolve) => setTimeout(resolve, ms)) }), 300);

  it('refuses an unknown option and a client that is not one, with a ConfigError naming them', () => {
    expect(() => new RedisRunStore(server().client(), { clock: 1 } as never)).toThrow(ConfigError);
    expect(() => new RedisRunStore({} as never)).toThrow(/redis/);
  });

  it('reads a journal of several pages in order, from any point', async () => {
    const store = new RedisRunStore(server().client(), { prefix: `rs-${randomUUID()}`, pageSize: 7 });
    const deltas = Array.from({ length: 40 }, (_, i) => delta('long', `${i} `));
    await store.append('long', [start('long'), ...deltas.slice(0, 15)]);
    await store.append('long', deltas.slice(15));
    const all = await readAll(store, 'long');
    expect(all.map((record) => record.seq)).toEqual(Array.from({ length: 41 }, (_, i) => i));
    expect(all.slice(1).map((record) => record.event)).toEqual(deltas);
    expect((await readAll(store, 'long', 30)).map((record) => record.seq)).toEqual(Array.from({ length: 11 }, (_, i) => 30 + i));
    expect(await store.summary('long')).toMatchObject({ name: 'story', status: 'running', records: 41 });
  });

  it('keeps run ids with braces, colons and percent signs apart, each run in keys of its own hash tag', async () => {
    const prefix = `rs-${randomUUID()}`;
    const store = new RedisRunStore(server().client(), { prefix });
    const ids = ['a{b}', 'a%7Bb%7D', 'a:b', '__proto__'];
    for (const id of ids) await store.append(id, [start(id, id)]);
    expect((await store.list()).map((summary) => summary.name).sort()).toEqual([...ids].sort());
    for (const id of ids) expect((await readAll(store, id)).map((record) => record.event)).toEqual([start(id, id)]);
    expect(runStoreKeys(prefix, 'a{b}').journal).toBe(`${prefix}:runstore:run:{a%7Bb%7D}:journal`);
  });

  it('refuses an event that is not a run event with a ConfigError naming it, and writes nothing', async () => {
    const store = new RedisRunStore(server().client(), { prefix: `rs-${randomUUID()}` });
    await store.append('r1', [start('r1')]);
    await expect(store.append('r1', [delta('r1', 'a'), { type: 'nope' } as never])).rejects.toThrow(/events\[1\]/);
    expect((await readAll(store, 'r1')).length).toBe(1);
  });

  it('gives a lease to exactly one of several clients racing for it', async () => {
    const prefix = `rs-${randomUUID()}`;
    const stores = Array.from({ length: 6 }, () => new RedisRunStore(server().client(), { prefix }));
    const results = await Promise.allSettled(stores.map((store) => store.acquireLease('race', 10_000)));
    const taken = results.filter((result) => result.status === 'fulfilled');
    expect(taken).toHaveLength(1);
    for (const result of results) if (result.status === 'rejected') expect(result.reason).toBeInstanceOf(RunLeasedError);
  });

  it('refuses a malformed entry written into a journal by someone else, naming the run and the entry', async () => {
    const prefix = `rs-${randomUUID()}`;
    const redis = server().client();
    const store = new RedisRunStore(redis, { prefix });
    await store.append('bad', [start('bad'), delta('bad', 'a')]);
    const keys = runStoreKeys(prefix, 'bad');
    // A writer that bypasses the store: its entry where the next record belongs, counted in the summary.
    await redis.xadd(keys.journal, '3-0', 'event', JSON.stringify({ type: 'text-delta', runId: 'bad' }));
    await redis.hincrby(keys.summary, 'records', 1);
    const read = readAll(store, 'bad');
    await expect(read).rejects.toBeInstanceOf(MalformedRunEntryError);
    await expect(read).rejects.toMatchObject({ code: 'RUN_ENTRY_MALFORMED', runId: 'bad', entryId: '3-0' });
    await expect(read).rejects.toBeInstanceOf(RunStoreError);
    // An entry added with an id of Redis's choosing: the next append refuses to write after it.
    await redis.xadd(keys.journal, '*', 'event', JSON.stringify(delta('bad', 'b')));
    const appended = store.append('bad', [delta('bad', 'c')]);
    await expect(appended).rejects.toMatchObject({ code: 'RUN_ENTRY_MALFORMED', runId: 'bad' });
    expect(await redis.xlen(keys.journal)).toBe(4);
  });

  it('puts a TTL on every key of a finished run when it retains finished runs, and none on a running one', async () => {
    const prefix = `rs-${randomUUID()}`;
    const redis = server().client();
    const store = new RedisRunStore(redis, { prefix, retainFinishedMs: 60_000 });
    await store.append('done', [start('done')]);
    await store.acquireLease('done', 120_000);
    await store.append('going', [start('going')]);
    await store.append('done', [end('done')]);
    const ttls = async (runId: string) => {
      const keys = runStoreKeys(prefix, runId);
      return Promise.all([redis.pttl(keys.journal), redis.pttl(keys.summary), redis.pttl(keys.lease)]);
    };
    for (const ttl of await ttls('done')) expect(ttl).toBeGreaterThan(0), expect(ttl).toBeLessThanOrEqual(60_000);
    expect((await ttls('going')).slice(0, 2)).toEqual([-1, -1]);
    expect(await store.summary('done')).toMatchObject({ status: 'succeeded', records: 2 });
    // expire(Infinity) keeps the finished run after all; expire(0) deletes it now.
    await store.expire('done', Infinity);
    expect((await ttls('done')).slice(0, 2)).toEqual([-1, -1]);
    await store.expire('done', 0);
    expect(await store.summary('done')).toBeUndefined();
  });

  it('drops from the list a run whose keys expired', async () => {
    const prefix = `rs-${randomUUID()}`;
    const redis = server().client();
    const store = new RedisRunStore(redis, { prefix, retainFinishedMs: 50 });
    await store.append('brief', [start('brief'), end('brief')]);
    await store.append('kept', [start('kept')]);
    await waitUntil('the finished run expired', async () => (await store.summary('brief')) === undefined);
    expect((await store.list()).map((summary) => summary.runId)).toEqual(['kept']);
    expect(await redis.zrange(runIndexKey(prefix), '0', '-1')).toEqual(['kept']);
  });
});

// A server of its own: the clients of the other tests would still be reconnecting after its restart.
describeRedis('RedisRunStore across an outage of Redis', (server) => {
  it('rejects an append with a retryable RunStoreError while Redis is down, and the journal holds exactly the earlier records after', async () => {
    const prefix = `rs-${randomUUID()}`;
    const redis = server().client({ maxRetriesPerRequest: 0, retryStrategy: () => 50 });
    redis.on('error', () => undefined);
    const store = new RedisRunStore(redis, { prefix });
    await store.append('outage', [start('outage'), delta('outage', 'before')]);
    const restarted = server().restart(1_500);
    await waitUntil('the client lost its connection', () => redis.status !== 'ready');
    const failed = store.append('outage', [delta('outage', 'during'), delta('outage', 'lost')]);
    await expect(failed).rejects.toBeInstanceOf(RunStoreError);
    await expect(failed).rejects.toMatchObject({ code: 'RUN_STORE_FAILED', retryable: true, runId: 'outage' });
    await restarted;
    await waitUntil('the client is connected again', () => redis.status === 'ready');
    expect((await readAll(store, 'outage')).map((record) => record.event)).toEqual([start('outage'), delta('outage', 'before')]);
    await store.append('outage', [delta('outage', 'after')]);
    expect((await readAll(store, 'outage')).map((record) => record.seq)).toEqual([0, 1, 2]);
  });

  it('names the holding process, its host and owner, and when its lease lapses on the Redis clock, when it refuses a lease', async () => {
    const prefix = `rs-${randomUUID()}`;
    const lease = await new RedisRunStore(server().client(), { prefix }).acquireLease('held', 60_000, { owner: 'registry-a' });
    const refused = (await new RedisRunStore(server().client(), { prefix }).acquireLease('held', 60_000).catch((error: unknown) => error)) as RunLeasedError;
    expect(refused).toBeInstanceOf(RunLeasedError);
    expect(refused).toMatchObject({ expiresAt: lease.expiresAt, holder: { pid: process.pid, host: hostname(), owner: 'registry-a' } });
    expect(refused.lapsesInMs).toBeGreaterThan(0);
    expect(refused.lapsesInMs).toBeLessThanOrEqual(60_000);
    expect(refused.message).toContain(`Run "held" is leased by process ${process.pid} on host ${hostname()} (owner registry-a) until ${new Date(lease.expiresAt).toISOString()} (in `);
  });

  it('keeps a run\'s lease as long as the run, and the lease of a run that never got a journal a day after it lapses', async () => {
    const prefix = `rs-${randomUUID()}`;
    const redis = server().client();
    const store = new RedisRunStore(redis, { prefix });
    const lease = await store.acquireLease('unstarted', 60_000);
    const ttl = await redis.pttl(runStoreKeys(prefix, 'unstarted').lease);
    expect(ttl).toBeGreaterThan(86_400_000);
    expect(ttl).toBeLessThanOrEqual(86_400_000 + 60_000);
    await store.append('unstarted', [start('unstarted')], await store.renewLease(lease, 60_000));
    expect(await redis.pttl(runStoreKeys(prefix, 'unstarted').lease)).toBe(-1);
    await store.renewLease(lease, 60_000);
    expect(await redis.pttl(runStoreKeys(prefix, 'unstarted').lease)).toBe(-1);
  });

  it('takes a lease whose holder, a process of this host, exited at once, with a higher epoch', async () => {
    const prefix = `rs-${randomUUID()}`;
    const store = new RedisRunStore(server().client(), { prefix });
    const holder = await spawnProcess('support/leaseHolder.ts', { REDIS_PORT: String(server().port), PREFIX: prefix, RUN_ID: 'orphan' });
    await expect(store.acquireLease('orphan', 60_000)).rejects.toMatchObject({ code: 'RUN_LEASED', holder: { pid: holder.pid, host: hostname() } });
    await killProcess(holder, 'SIGKILL');
    // Its 600 s lease has not lapsed, but no process holds it any more.
    await expect(store.acquireLease('orphan', 60_000)).resolves.toMatchObject({ runId: 'orphan', epoch: 2 });
  });

  it('gives the lease to the client whose acquireLease reply was lost and sent again', async () => {
    const prefix = `rs-${randomUUID()}`;
    const proxy = await startCuttingProxy(server().port);
    const observer = server().client();
    const redis = server().client({ port: proxy.port, disconnectTimeout: 100 });
    redis.on('error', () => undefined);
    try {
      const store = new RedisRunStore(redis, { prefix });
      await store.acquireLease('warm-up', 10_000); // the script is known to Redis now: the next lease is one EVALSHA
      const cut = proxy.cutAfter('EVALSHA', async () => (await observer.hexists(runStoreKeys(prefix, 'cut').lease, 'token')) === 1);
      const lease = await store.acquireLease('cut', 10_000);
      await cut;
      expect(await observer.hget(runStoreKeys(prefix, 'cut').lease, 'token')).toBe(lease.token);
      expect((await store.renewLease(lease, 10_000)).token).toBe(lease.token);
    } finally {
      redis.disconnect();
      await proxy.close();
    }
  });

  it('adds an append once when its reply is lost and ioredis sends it again', async () => {
    const prefix = `rs-${randomUUID()}`;
    const proxy = await startCuttingProxy(server().port);
    const observer = server().client();
    const redis = server().client({ port: proxy.port, disconnectTimeout: 100 });
    redis.on('error', () => undefined);
    try {
      const store = new RedisRunStore(redis, { prefix });
      await store.append('cut', [start('cut')]);
      await store.append('cut', [delta('cut', 'a')]); // the script is known to Redis now: the next append is one EVALSHA
      const records = async () => Number(await observer.hget(runStoreKeys(prefix, 'cut').summary, 'records'));
      const cut = proxy.cutAfter('EVALSHA', async () => (await records()) === 4);
      await store.append('cut', [delta('cut', 'b'), delta('cut', 'c')]);
      await cut;
      expect((await readAll(store, 'cut')).map((record) => record.event)).toEqual([start('cut'), delta('cut', 'a'), delta('cut', 'b'), delta('cut', 'c')]);
    } finally {
      redis.disconnect(); // while the proxy still answers: a client closed after its server went away keeps a timer alive
      await proxy.close();
    }
  });
});

describeRedis('RedisRunStore as the least-privilege ACL user of the scale-out guide', (server) => {
  it('appends, reads, lists, leases, expires and deletes with only the commands the guide grants', async () => {
    const guide = readFileSync(join(__dirname, '../../../docs/scale-out.md'), 'utf8');
    const line = guide.split('\n').find((text) => text.trim().startsWith('ACL SETUSER rxagents '));
    if (line === undefined) throw new Error('docs/scale-out.md has no "ACL SETUSER rxagents" line');
    const [, , ...rules] = line.trim().split(/\s+/);
    const password = randomBytes(24).toString('hex');
    await server().client().call('ACL', 'SETUSER', ...rules.map((rule) => (rule.startsWith('>') ? `>${password}` : rule)));
    const store = new RedisRunStore(server().client({ username: 'rxagents', password, db: 3 }), { retainFinishedMs: 60_000 });
    const runId = randomUUID();
    await store.append(runId, [start(runId), delta(runId, 'a')]);
    const lease = await store.acquireLease(runId, 10_000);
    await expect(store.acquireLease(runId, 10_000)).rejects.toBeInstanceOf(RunLeasedError);
    await store.append(runId, [end(runId)], await store.renewLease(lease, 10_000));
    await store.releaseLease(lease);
    expect((await readAll(store, runId)).map((record) => record.seq)).toEqual([0, 1, 2]);
    expect((await store.list({ status: 'succeeded' })).map((summary) => summary.runId)).toContain(runId);
    await store.expire(runId, Infinity);
    await store.expire(runId, 60_000);
    await store.delete(runId);
    expect(await store.summary(runId)).toBeUndefined();
    expect(await store.list()).toEqual([]);
  });
});

describeRedisCluster('RedisRunStore on a Redis Cluster', (cluster) => {
  describeRunStore('redis cluster', async () => ({ store: new RedisRunStore(cluster().client(), { prefix: `rs-${randomUUID()}` }), advance: (ms) => new Promise((resolve) => setTimeout(resolve, ms)) }), 300);

  it('keeps every key of a run in one slot, runs on several nodes, and lists them all', async () => {
    const prefix = `rs-${randomUUID()}`;
    const store = new RedisRunStore(cluster().client(), { prefix });
    // Run ids whose keys are served by at least two of the three masters.
    const runIds: string[] = [];
    const ports = new Set<number>();
    for (let n = 0; runIds.length < 2 || ports.size < 2; n++) {
      const port = await cluster().portOf(runStoreKeys(prefix, `run-${n}`).journal);
      if (!ports.has(port)) (runIds.push(`run-${n}`), ports.add(port));
    }
    const node = cluster().node(cluster().ports[0] as number);
    for (const runId of runIds) {
      await store.append(runId, [start(runId), delta(runId, 'a')]);
      const lease = await store.acquireLease(runId, 10_000);
      await store.append(runId, [end(runId)], lease);
      await store.releaseLease(lease);
      const keys = runStoreKeys(prefix, runId);
      const slots = await Promise.all([keys.journal, keys.summary, keys.lease].map(async (key) => Number(await node.call('CLUSTER', 'KEYSLOT', key))));
      expect(new Set(slots).size).toBe(1);
      expect((await readAll(store, runId)).map((record) => record.event)).toEqual([start(runId), delta(runId, 'a'), end(runId)]);
    }
    expect((await store.list({ status: 'succeeded' })).map((summary) => summary.runId).sort()).toEqual([...runIds].sort());
  });
});
