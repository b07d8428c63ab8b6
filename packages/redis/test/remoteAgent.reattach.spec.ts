import { type ChatOptions, defineAgent, emitCustom, invoke, invoke$, MemoryRunStore, observeRun, type RunEvent, RunLeasedError } from '@rxagents/core';
import { firstValueFrom, from, lastValueFrom, Observable, type Subscription, toArray } from 'rxjs';
import { RedisRunStore, remoteAgent, RemoteLeaseLostError } from '../src';
import { describeRedis } from './support/describeRedis';
import { servedPerTest } from './support/servedPerTest';
import { killProcess, spawnProcess } from './support/spawnProcess';
import { waitUntil } from './support/waitUntil';

jest.setTimeout(30_000);

/**
 * An agent that writes its first chunk at once and the rest when `release` is called; `runs` counts its
 * calls. With `nested`, it first reports a `custom` event and calls a helper agent in the caller's run.
 */
function gatedScribe(nested = false) {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const counts = { runs: 0, started: 0 };
  const helper = defineAgent('helper', async (input: string) => input);
  const agent = defineAgent('scribe', (input: string, { run }) =>
    new Observable<string>((subscriber) => {
      counts.runs += 1;
      if (nested) emitCustom(run, 'progress', { step: 1 });
      const helped = nested ? invoke(helper, input, run === undefined ? {} : { run }) : Promise.resolve(input);
      void helped
        .then((text) => {
          subscriber.next(`${text}: once `);
          counts.started += 1;
          return gate;
        })
        .then(() => {
          subscriber.next('upon a time');
          subscriber.complete();
        });
    }),
  );
  return { agent, counts, release };
}

function chat(agent: ReturnType<typeof remoteAgent>, input: string, idempotencyKey?: string): Promise<string> {
  const options: ChatOptions = { signal: new AbortController().signal, ...(idempotencyKey === undefined ? {} : { idempotencyKey }) };
  return lastValueFrom(from(agent.chat(input, options)).pipe(toArray())).then((chunks) => chunks.join(''));
}

const rootEnd = (events: readonly RunEvent[]) => events.find((event): event is Extract<RunEvent, { type: 'run-end' }> => event.type === 'run-end' && event.parentCallId === null);

describeRedis('remoteAgent with an idempotency key', (server) => {
  const served = servedPerTest('r');

  /**
   * Runs the durable run of `support/durableCaller.ts` in a caller process, kills it (SIGKILL) once the
   * worker runs the call, resumes the run here with the same store and run id, and lets the agent finish
   * once the resumed caller holds the call; resolves to the resumed run's events and an uninterrupted run's.
   */
  async function crashAndResume(scribe: ReturnType<typeof gatedScribe>): Promise<{ events: RunEvent[]; uninterrupted: RunEvent[] }> {
    served.serve(server().client(), scribe.agent);
    const runId = `run-${served.prefix}`;
    const caller = await spawnProcess('support/durableCaller.ts', { REDIS_PORT: String(server().port), PREFIX: served.prefix, RUN_ID: runId });
    try {
      await waitUntil('the worker runs the call', () => scribe.counts.started === 1);
    } finally {
      await killProcess(caller, 'SIGKILL');
    }
    const redis = server().client();
    const store = new RedisRunStore(redis, { prefix: served.prefix });
    const remote = remoteAgent(redis, 'scribe', { prefix: served.prefix });
    const body = (run: Parameters<Parameters<typeof observeRun>[2]>[0]) => invoke$(remote, 'dragons', { run });
    // The killed process's run lease lasts 300 ms more: until then a resume is refused.
    let events: RunEvent[] = [];
    let subscription: Subscription | undefined;
    await waitUntil('the run resumes', async () => {
      const resumed = await new Promise<boolean>((resolve) => {
        events = [];
        subscription = observeRun('story', 'dragons', body, { store, runId }).subscribe({
          next: (event) => {
            events.push(event);
            resolve(true);
          },
          error: (error: unknown) => resolve(error instanceof RunLeasedError ? false : Promise.reject(error)),
        });
      });
      return resumed;
    });
    // The resumed caller holds the call's lease now (its own leaseMs, 10 s, below the killed caller's 60 s).
    await waitUntil('the resumed caller attached', async () => {
      const [, leases] = await redis.scan('0', 'MATCH', `${served.prefix}:call:*:lease`, 'COUNT', 10_000);
      const ttl = leases[0] === undefined ? -2 : await redis.pttl(leases[0]);
      return ttl > 0 && ttl <= 10_000;
    });
    expect(scribe.counts.runs).toBe(1);
    scribe.release();
    await waitUntil('the resumed run ends', () => rootEnd(events) !== undefined);
    subscription?.unsubscribe();
    expect(scribe.counts.runs).toBe(1);
    const uninterrupted = await firstValueFrom(observeRun('story', 'dragons', body, { store: new MemoryRunStore(), runId: `${runId}-whole` }).pipe(toArray()));
    expect(scribe.counts.runs).toBe(2);
    return { events, uninterrupted };
  }

  it('re-attaches a durable run resumed after its caller process was killed mid-call to the call still running on the worker: the agent runs once', async () => {
    const { events, uninterrupted } = await crashAndResume(gatedScribe());
    expect(rootEnd(events)).toMatchObject({ success: true, output: 'dragons: once upon a time' });
    expect(rootEnd(events)).toMatchObject({ success: rootEnd(uninterrupted)?.success, output: rootEnd(uninterrupted)?.output });
  });

  it("shows the remote agent's own run events of a re-attached call under the resumed attempt", async () => {
    const { events, uninterrupted } = await crashAndResume(gatedScribe(true));
    expect(rootEnd(events)).toMatchObject({ success: true, output: rootEnd(uninterrupted)?.output });
    const live = events.find((event) => event.type === 'call-start' && event.agentId === 'scribe' && event.callId.includes('#'));
    expect(live).toBeDefined();
    const under = events.filter((event) => event.parentCallId === live?.callId || event.callId === live?.callId);
    expect(under.map((event) => event.type)).toEqual(expect.arrayContaining(['custom', 'call-start', 'call-end']));
    expect(under.some((event) => event.type === 'call-start' && event.agentId === 'helper')).toBe(true);
  });

  it('sends one request for two callers of one idempotency key at once, and gives both the whole reply', async () => {
    const scribe = gatedScribe();
    served.serve(server().client(), scribe.agent);
    const first = remoteAgent(server().client(), 'scribe', { prefix: served.prefix });
    const second = remoteAgent(server().client(), 'scribe', { prefix: served.prefix });
    const replies = Promise.all([chat(first, 'owls', 'run-1:run/0'), chat(second, 'owls', 'run-1:run/0')]);
    await waitUntil('the worker runs the call', () => scribe.counts.started === 1);
    scribe.release();
    expect(await replies).toEqual(['owls: once upon a time', 'owls: once upon a time']);
    expect(scribe.counts.runs).toBe(1);
  });

  it('answers a later caller of a key whose call ended from the kept reply, without running the agent again', async () => {
    const scribe = gatedScribe();
    scribe.release();
    served.serve(server().client(), scribe.agent);
    const remote = remoteAgent(server().client(), 'scribe', { prefix: served.prefix });
    expect(await chat(remote, 'cats', 'run-2:run/0')).toBe('cats: once upon a time');
    expect(await chat(remoteAgent(server().client(), 'scribe', { prefix: served.prefix }), 'cats', 'run-2:run/0')).toBe('cats: once upon a time');
    expect(scribe.counts.runs).toBe(1);
    // Another key is another call.
    expect(await chat(remote, 'cats', 'run-2:run/1')).toBe('cats: once upon a time');
    expect(scribe.counts.runs).toBe(2);
  });

  it('sends the call again when the worker stopped it because its first caller died and its lease ran out', async () => {
    const scribe = gatedScribe();
    served.serve(server().client(), scribe.agent);
    // A caller whose connection dies with it: it can neither renew its lease nor cancel the call.
    const doomed = server().client();
    const lost = chat(remoteAgent(doomed, 'scribe', { prefix: served.prefix, leaseMs: 300 }), 'bats', 'run-3:run/0').catch(() => 'lost');
    await waitUntil('the worker runs the call', () => scribe.counts.started === 1);
    doomed.disconnect();
    await lost;
    const redis = server().client();
    const reply = `${served.prefix}:call:*:reply`;
    await waitUntil('the worker stopped the call', async () => {
      const [, keys] = await redis.scan('0', 'MATCH', reply, 'COUNT', 10_000);
      const entries = keys[0] === undefined ? [] : await redis.xrange(keys[0], '-', '+');
      return JSON.stringify(entries).includes('REMOTE_LEASE_LOST');
    });
    const again = chat(remoteAgent(redis, 'scribe', { prefix: served.prefix }), 'bats', 'run-3:run/0');
    await waitUntil('the worker runs the call again', () => scribe.counts.started === 2);
    scribe.release();
    expect(await again).toBe('bats: once upon a time');
    expect(scribe.counts.runs).toBe(2);
  });

  it('re-attaches to a call whose worker died, which another worker runs again after claimIdleMs', async () => {
    const scribe = gatedScribe();
    const dying = served.serve(server().client(), scribe.agent);
    const doomed = server().client();
    const lost = chat(remoteAgent(doomed, 'scribe', { prefix: served.prefix }), 'mice', 'run-5:run/0').catch(() => 'lost');
    await waitUntil('the first worker runs the call', () => scribe.counts.started === 1);
    doomed.disconnect();
    await dying.close();
    const again = chat(remoteAgent(server().client(), 'scribe', { prefix: served.prefix }), 'mice', 'run-5:run/0');
    served.serve(server().client(), scribe.agent);
    await waitUntil('another worker runs the call again', () => scribe.counts.started === 2);
    scribe.release();
    expect(await again).toBe('mice: once upon a time');
    expect(scribe.counts.runs).toBe(2);
    await lost; // The dead caller's own call ends when it finds its connection gone.
  });

  it('cancels a re-attached call when its caller unsubscribes, as a call it sent', async () => {
    let aborted = 0;
    served.serve(
      server().client(),
      defineAgent('scribe', () => new Observable<string>((subscriber) => (subscriber.next('once '), () => (aborted += 1)))),
    );
    const redis = server().client();
    const first = remoteAgent(redis, 'scribe', { prefix: served.prefix });
    const second = remoteAgent(server().client(), 'scribe', { prefix: served.prefix });
    let failure: unknown;
    from(first.chat('rats', { signal: new AbortController().signal, idempotencyKey: 'run-4:run/0' })).subscribe({ error: (error: unknown) => (failure = error) });
    const two = from(second.chat('rats', { signal: new AbortController().signal, idempotencyKey: 'run-4:run/0' })).subscribe({ error: () => undefined });
    await waitUntil('the call runs', async () => (await redis.scan('0', 'MATCH', `${served.prefix}:call:*:reply`, 'COUNT', 10_000))[1].length === 1);
    two.unsubscribe();
    await waitUntil('the worker aborted the agent', () => aborted === 1);
    // The other caller of the key finds the call's lease gone at its next renewal.
    await waitUntil('the other caller failed', () => failure !== undefined);
    expect(failure).toBeInstanceOf(RemoteLeaseLostError);
  });
});
