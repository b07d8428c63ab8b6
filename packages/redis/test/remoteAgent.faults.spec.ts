import { randomUUID } from 'node:crypto';
import { type AddressInfo, connect, createServer, type Socket } from 'node:net';
import { type AgentError, ConfigError, defineAgent, invoke, invoke$, observeRun, type RunEvent } from '@rxagents/core';
import { Redis } from 'ioredis';
import { firstValueFrom, Observable, toArray, VirtualTimeScheduler } from 'rxjs';
import { redisChannel, remoteAgent, RemoteCallAttemptsError, serveAgent } from '../src';
import { type CuttingProxy, startCuttingProxy } from './support/cuttingProxy';
import { describeRedis } from './support/describeRedis';
import { waitUntil } from './support/waitUntil';
import { servedPerTest } from './support/servedPerTest';
import { waitingAgent } from './support/waitingAgent';

jest.setTimeout(30_000);

/** A promise the test resolves. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open: () => void = () => undefined;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

describeRedis('remote calls: starts, cancellations and ids', (server) => {
  const served = servedPerTest('tf');
  const serve = served.serve;

  /** The tokens of every attempts list under this test's prefix (SCAN). */
  const startsStored = async (): Promise<number> => {
    const redis = server().client();
    let count = 0;
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${served.prefix}:call:*:attempts`, 'COUNT', 1_000);
      cursor = next;
      for (const key of keys) count += await redis.llen(key);
    } while (cursor !== '0');
    return count;
  };

  /** Runs `invoke$` of `remote` in a run and resolves to the run's events. */
  const runEvents = (remote: ReturnType<typeof remoteAgent>): Promise<RunEvent[]> =>
    firstValueFrom(observeRun('faults', 'x', (run) => invoke$(remote, 'x', { run })).pipe(toArray()));

  it('never starts a call cancelled before a worker read it: the cancellation deletes its entry', async () => {
    const redis = server().client();
    const calls = `${served.prefix}:agent:{late}:calls`;
    const inputs: string[] = [];
    const remote = remoteAgent(server().client(), 'late', { prefix: served.prefix });
    const subscription = invoke$(remote, 'cancelled').subscribe({ error: () => undefined });
    await waitUntil('the call is added', async () => (await redis.xlen(calls)) === 1);
    subscription.unsubscribe();
    await waitUntil('the call is deleted', async () => (await redis.xlen(calls)) === 0);
    serve(server().client(), defineAgent('late', async (input) => (inputs.push(input), `done ${input}`)));
    expect(await firstValueFrom(invoke$(remote, 'kept'))).toBe('done kept');
    expect(inputs).toEqual(['kept']);
  });

  it('never starts an entry older than half its lease whose lease is gone (its caller died)', async () => {
    const redis = server().client();
    const calls = `${served.prefix}:agent:{orphan}:calls`;
    const inputs: string[] = [];
    const entry = (input: string) => JSON.stringify({ v: 1, callId: randomUUID(), agentId: 'orphan', input, maxAttempts: 1, leaseMs: 1_000 });
    // Added 10 s ago by Redis's clock, with no lease: its caller is gone.
    const [seconds] = await redis.time();
    await redis.xadd(calls, `${(Number(seconds) - 10) * 1_000}-0`, 'call', entry('orphaned'));
    serve(server().client(), defineAgent('orphan', async (input) => (inputs.push(input), `done ${input}`)));
    await waitUntil('the orphaned call is removed', async () => (await redis.xlen(calls)) === 0);
    expect(await firstValueFrom(invoke$(remoteAgent(server().client(), 'orphan', { prefix: served.prefix }), 'live'))).toBe('done live');
    expect(inputs).toEqual(['live']);
  });

  describe('when Redis applied the start of a call but its reply was lost (ioredis sends the command again)', () => {
    let proxy: CuttingProxy;
    let workerClient: Redis;
    beforeEach(async () => {
      proxy = await startCuttingProxy(server().port);
      workerClient = new Redis({ port: proxy.port, host: '127.0.0.1' });
    });
    afterEach(async () => {
      // The workers first: they use the client that goes next.
      await served.closeWorkers();
      workerClient.disconnect();
      await proxy.close();
    });

    it('counts a first start once: no restart is reported and maxAttempts 1 succeeds', async () => {
      const later = gate();
      const teller = defineAgent('teller', () => new Observable<string>((s) => (s.next('once '), void later.promise.then(() => (s.next('upon'), s.complete())))));
      serve(workerClient, teller);
      const cut = proxy.cutAfter('RPUSH', async () => (await startsStored()) >= 1);
      const events = runEvents(remoteAgent(server().client(), 'teller', { prefix: served.prefix, maxAttempts: 1 }));
      await cut;
      later.open();
      const all = await events;
      expect(all.filter((e) => e.type === 'custom' && e.name === 'call-restarted')).toEqual([]);
      expect(all.at(-1)).toMatchObject({ type: 'run-end', success: true, output: 'once upon' });
    });

    it('counts a restart on a claiming worker once: one restart is reported and maxAttempts 2 succeeds', async () => {
      let firstStarts = 0;
      const first = serve(server().client(), defineAgent('teller', () => new Observable<string>(() => void firstStarts++)));
      const events = runEvents(remoteAgent(server().client(), 'teller', { prefix: served.prefix, maxAttempts: 2 }));
      await waitUntil('the first worker runs the call', async () => firstStarts === 1 && (await startsStored()) === 1);
      await first.close(); // leaves the entry pending, as a crash does
      const cut = proxy.cutAfter('RPUSH', async () => (await startsStored()) >= 2);
      serve(workerClient, defineAgent('teller', async () => 'second attempt'));
      await cut;
      const all = await events;
      expect(all.filter((e) => e.type === 'custom' && e.name === 'call-restarted').map((e) => (e.type === 'custom' ? e.data : undefined))).toEqual([
        { agentId: 'teller', attempt: 2 },
      ]);
      expect(all.at(-1)).toMatchObject({ type: 'run-end', success: true, output: 'second attempt' });
    });

    it('still fails with RemoteCallAttemptsError when a claim would start a call past maxAttempts', async () => {
      let firstStarts = 0;
      const first = serve(server().client(), defineAgent('teller', () => new Observable<string>(() => void firstStarts++)));
      const failure = firstValueFrom(invoke$(remoteAgent(server().client(), 'teller', { prefix: served.prefix, maxAttempts: 1 }), 'x')).catch((error: unknown) => error);
      await waitUntil('the first worker runs the call', () => firstStarts === 1);
      await first.close();
      serve(workerClient, defineAgent('teller', async () => 'never'));
      const error = (await failure) as AgentError;
      expect(error.cause).toBeInstanceOf(RemoteCallAttemptsError);
    });
  });

  it("keeps checking a draining worker's calls: a caller that cancels still aborts the agent's signal", async () => {
    const slow = waitingAgent('slow');
    const worker = serve(server().client(), slow.agent);
    const remote = remoteAgent(server().client(), 'slow', { prefix: served.prefix });
    const subscription = invoke$(remote, 'x').subscribe({ error: () => undefined });
    await waitUntil('the worker runs the call', () => slow.started === 1);
    const drained = worker.drain();
    subscription.unsubscribe();
    await waitUntil('the draining worker aborts the call', () => slow.aborted === 1);
    await drained;
    expect(worker.running).toBe(0);
  });

  it('pauses after an XREADGROUP reply it cannot parse, leaving the next calls to the other workers', async () => {
    // With `replyMapping: 'resp3'` ioredis gives XREADGROUP's RESP3 map as a plain object, a shape the worker
    // refuses. serveAgent refuses such a client up front, so the client says 'legacy' to that check and
    // 'resp3' to the reading connection the worker copies from it.
    const mapped = server().client();
    let asked = 0;
    Object.defineProperty(mapped.options, 'replyMapping', { enumerable: true, configurable: true, get: () => (asked++ === 0 ? 'legacy' : 'resp3') });
    const reported: unknown[] = [];
    // Its pause never ends on its own: a scheduler whose time the test does not advance.
    serve(mapped, defineAgent('mapped', async () => 'from the refusing worker'), { scheduler: new VirtualTimeScheduler(), onError: (error) => reported.push(error) });
    const remote = remoteAgent(server().client(), 'mapped', { prefix: served.prefix });
    const first = invoke$(remote, 'first').subscribe({ error: () => undefined });
    try {
      await waitUntil('the worker reports the reply it cannot parse', () => reported.length === 1);
      expect(String(reported[0])).toMatch(/unexpected XREADGROUP reply/);
      serve(server().client(), defineAgent('mapped', async (input) => `served ${input}`));
      expect(await invoke(remote, 'second', { timeout: 10_000 })).toBe('served second');
      expect(reported).toHaveLength(1);
    } finally {
      first.unsubscribe();
    }
  });

  it('serves once Redis becomes reachable when the worker started while it was not', async () => {
    // A proxy in front of the server that refuses connections until it is opened: Redis "down" at the start.
    let up = false;
    const sockets = new Set<Socket>();
    const proxy = createServer((client) => {
      sockets.add(client);
      if (!up) return void client.destroy();
      const upstream = connect(server().port, '127.0.0.1');
      sockets.add(upstream);
      client.pipe(upstream).pipe(client);
      const end = (): void => (client.destroy(), void upstream.destroy());
      client.on('error', end).on('close', end);
      upstream.on('error', end).on('close', end);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const port = (proxy.address() as AddressInfo).port;
    const workerClient = new Redis({ port, host: '127.0.0.1', maxRetriesPerRequest: 0, retryStrategy: () => 20 });
    workerClient.on('error', () => undefined);
    try {
      const errors: unknown[] = [];
      serve(workerClient, defineAgent('early', async (input) => `served ${input}`), { onError: (error) => errors.push(error) });
      await waitUntil('the worker reports that Redis is unreachable', () => errors.length > 0);
      up = true;
      const reply = await invoke(remoteAgent(server().client(), 'early', { prefix: served.prefix }), 'late', { timeout: 10_000 });
      expect(reply).toBe('served late');
    } finally {
      await served.closeWorkers();
      workerClient.disconnect();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
    }
  });

  it('refuses agent and channel ids with { or } (they become hash tags of keys) with a ConfigError naming the field', () => {
    const redis = server().client();
    expect(() => remoteAgent(redis, 'a{b}')).toThrow(ConfigError);
    expect(() => remoteAgent(redis, 'a{b}')).toThrow(/\bid\b.*\{ or \}/s);
    expect(() => serveAgent(redis, defineAgent('a}b', async () => ''))).toThrow(ConfigError);
    expect(() => serveAgent(redis, defineAgent('a}b', async () => ''))).toThrow(/agent\.id.*\{ or \}/s);
    expect(() => redisChannel(redis, '{x}')).toThrow(ConfigError);
    expect(() => redisChannel(redis, '{x}')).toThrow(/\bid\b.*\{ or \}/s);
    expect(remoteAgent(redis, 'a:b-c').id).toBe('a:b-c');
  });
});
