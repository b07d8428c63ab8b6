import { Redis } from 'ioredis';
import { defineAgent, invoke } from '@rxagents/core';
import { remoteAgent } from '../src';
import { type CuttingProxy, startCuttingProxy } from './support/cuttingProxy';
import { describeRedis } from './support/describeRedis';
import { servedPerTest } from './support/servedPerTest';
import { waitUntil } from './support/waitUntil';

jest.setTimeout(30_000);

describeRedis('remote calls: entries that carry the id of another call', (server) => {
  const served = servedPerTest('ti');

  it("writes no refusal into the reply of a call whose id another writer copied into an entry the worker refuses", async () => {
    const redis = server().client();
    const calls = `${served.prefix}:agent:{echo}:calls`;
    const reply = invoke(remoteAgent(server().client(), 'echo', { prefix: served.prefix }), 'hello').catch((error: unknown) => error);
    await waitUntil('the call is in the stream', async () => (await redis.xlen(calls)) === 1);
    const [[, fields]] = (await redis.xrange(calls, '-', '+')) as [[string, string[]]];
    const call = JSON.parse(fields[fields.indexOf('call') + 1] as string) as Record<string, unknown>;
    // Read from the stream, the call's id goes into an entry the worker refuses (it names another agent).
    await redis.xadd(calls, '*', 'call', JSON.stringify({ ...call, agentId: 'other' }));
    served.serve(server().client(), defineAgent('echo', async (input) => `echo ${input}`));
    expect(await reply).toBe('echo hello');
    await waitUntil('the copy is dead-lettered', async () => (await redis.xlen(`${served.prefix}:agent:{echo}:dead`)) === 1);
  });

  describe("when Redis applied a caller's call entry but its reply was lost (ioredis sends the XADD again)", () => {
    let proxy: CuttingProxy;
    let callerClient: Redis;
    beforeEach(async () => {
      proxy = await startCuttingProxy(server().port);
      callerClient = new Redis({ port: proxy.port, host: '127.0.0.1' });
    });
    afterEach(async () => {
      await served.closeWorkers();
      callerClient.disconnect();
      await proxy.close();
    });

    it('starts the agent once for the two entries, and the caller gets its one reply', async () => {
      const redis = server().client();
      const calls = `${served.prefix}:agent:{counted}:calls`;
      const inputs: string[] = [];
      const cut = proxy.cutAfter('XADD', async () => (await redis.xlen(calls)) >= 1);
      const reply = invoke(remoteAgent(callerClient, 'counted', { prefix: served.prefix }), 'once', { timeout: 20_000 });
      await cut;
      await waitUntil('the entry was added twice', async () => (await redis.xlen(calls)) === 2);
      served.serve(server().client(), defineAgent('counted', async (input) => (inputs.push(input), `done ${input}`)));
      expect(await reply).toBe('done once');
      await waitUntil('both entries are answered', async () => (await redis.xlen(calls)) === 0 && (await redis.xpending(calls, 'workers'))[0] === 0);
      expect(inputs).toEqual(['once']);
    });
  });
});
