import { AgentError, defineAgent, invoke, invoke$, stream } from '@rxagents/core';
import { Redis } from 'ioredis';
import { Observable, VirtualAction, VirtualTimeScheduler } from 'rxjs';
import { remoteAgent, RemoteLeaseLostError } from '../src';
import { describeRedis } from './support/describeRedis';
import { type GatedProxy, startGatedProxy } from './support/gatedProxy';
import { servedPerTest } from './support/servedPerTest';
import { waitUntil } from './support/waitUntil';
import { waitingAgent } from './support/waitingAgent';

jest.setTimeout(30_000);

/** The cause of a failed `invoke`: the remote error inside the `AgentError` naming the agent. */
async function causeOf(call: Promise<unknown>): Promise<unknown> {
  const error = await call.then(
    () => undefined,
    (failure: unknown) => failure,
  );
  expect(error).toBeInstanceOf(AgentError);
  return (error as AgentError).cause;
}

describeRedis('remote calls whose caller lost its lease', (server) => {
  const served = servedPerTest('tle');

  /** The keys of every call under this test's prefix. */
  const callKeys = async (): Promise<string[]> => (await server().client().scan('0', 'MATCH', `${served.prefix}:call:*`, 'COUNT', 10_000))[1];

  it('ends the call with a retryable RemoteLeaseLostError when its lease runs out, and the worker stops the agent', async () => {
    const redis = server().client();
    const slow = waitingAgent('slow');
    served.serve(server().client(), slow.agent);
    const remote = remoteAgent(server().client(), 'slow', { prefix: served.prefix, leaseMs: 300 });
    const call = causeOf(invoke(remote, 'x', { timeout: 10_000 }));
    await waitUntil('the worker runs the call', () => slow.started === 1);
    // As if the caller had not renewed it for leaseMs: the lease is gone. A renewal must not bring it back.
    const [lease] = (await redis.scan('0', 'MATCH', `${served.prefix}:call:*:lease`, 'COUNT', 10_000))[1];
    expect(lease).toBeDefined();
    await redis.del(lease as string);
    const cause = await call;
    expect(cause).toBeInstanceOf(RemoteLeaseLostError);
    expect(cause).toMatchObject({ code: 'REMOTE_LEASE_LOST', retryable: true, agentId: 'slow' });
    await waitUntil('the worker aborted the agent', () => slow.aborted === 1);
    await waitUntil('nothing of the call is left in Redis', async () => (await callKeys()).length === 0 && (await redis.xlen(`${served.prefix}:agent:{slow}:calls`)) === 0);
  });

  it("tells a caller whose renewals stalled (its clock stood still) with the worker's last reply", async () => {
    const slow = waitingAgent('slow');
    served.serve(server().client(), slow.agent);
    // No renewal ever runs: a scheduler whose time the test does not advance, as a blocked event loop.
    const clock = new VirtualTimeScheduler(VirtualAction, 60_000);
    const remote = remoteAgent(server().client(), 'slow', { prefix: served.prefix, leaseMs: 300, scheduler: clock });
    const cause = await causeOf(invoke(remote, 'x', { timeout: 10_000 }));
    expect(cause).toBeInstanceOf(RemoteLeaseLostError);
    expect(slow.aborted).toBe(1);
    clock.flush(); // the caller's idle connection closes (after 250 ms of its clock)
  });

  describe('a caller cut off from Redis for longer than its lease', () => {
    let proxy: GatedProxy;
    let callerClient: Redis;
    beforeEach(async () => {
      proxy = await startGatedProxy(server().port);
      callerClient = new Redis({ port: proxy.port, host: '127.0.0.1', retryStrategy: () => 20 });
      callerClient.on('error', () => undefined);
    });
    afterEach(async () => {
      callerClient.disconnect();
      await proxy.close();
    });

    it('ends its call with RemoteLeaseLostError once it is back, instead of waiting for ever', async () => {
      const slow = waitingAgent('slow');
      served.serve(server().client(), slow.agent);
      const remote = remoteAgent(callerClient, 'slow', { prefix: served.prefix, leaseMs: 300 });
      const call = causeOf(invoke(remote, 'x', { timeout: 15_000 }));
      await waitUntil('the worker runs the call', () => slow.started === 1);
      proxy.shut();
      await waitUntil('the worker stopped the call of the caller it took for gone', () => slow.aborted === 1);
      proxy.open();
      expect(await call).toBeInstanceOf(RemoteLeaseLostError);
      await waitUntil('nothing of the call is left in Redis', async () => (await callKeys()).length === 0);
    });
  });

  describe('a cancelled call', () => {
    it('leaves nothing in Redis when the worker goes on writing chunks after the cancellation', async () => {
      let aborted = false;
      const chatty = defineAgent(
        'chatty',
        (_input, { signal }) =>
          new Observable<string>((subscriber) => {
            signal.addEventListener('abort', () => (aborted = true));
            const timer = setInterval(() => subscriber.next('more '), 2);
            return () => clearInterval(timer);
          }),
      );
      served.serve(server().client(), chatty);
      let chunks = 0;
      const subscription = stream(remoteAgent(server().client(), 'chatty', { prefix: served.prefix, delivery: 'live' }), 'x').subscribe({ next: () => chunks++, error: () => undefined });
      await waitUntil('the worker writes chunks', () => chunks > 3);
      subscription.unsubscribe();
      await waitUntil('the worker aborted the agent', () => aborted);
      await waitUntil('nothing of the call is left in Redis', async () => (await callKeys()).length === 0);
    });

    it('leaves nothing in Redis when the agent ends just after the cancellation, before the worker checked the lease', async () => {
      const redis = server().client();
      let finish: () => void = () => undefined;
      const ending = defineAgent('ending', () => new Promise<string>((resolve) => (finish = () => resolve('the end'))));
      // The worker checks leases rarely: the end is written before it learns of the cancellation.
      served.serve(server().client(), ending, { leaseCheckMs: 5_000, claimIdleMs: 20_000 });
      const subscription = invoke$(remoteAgent(server().client(), 'ending', { prefix: served.prefix }), 'x').subscribe({ error: () => undefined });
      await waitUntil('the worker runs the call', async () => (await redis.scan('0', 'MATCH', `${served.prefix}:call:*:entry`, 'COUNT', 10_000))[1].length === 1);
      subscription.unsubscribe();
      await waitUntil('the caller deleted its lease', async () => (await redis.scan('0', 'MATCH', `${served.prefix}:call:*:lease`, 'COUNT', 10_000))[1].length === 0);
      finish();
      await waitUntil('the worker acknowledged the call', async () => (await redis.xlen(`${served.prefix}:agent:{ending}:calls`)) === 0);
      await waitUntil('nothing of the call is left in Redis', async () => (await callKeys()).length === 0);
    });
  });
});
