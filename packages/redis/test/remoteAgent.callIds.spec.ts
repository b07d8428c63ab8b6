import { defineAgent, invoke } from '@rxagents/core';
import { remoteAgent } from '../src';
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
});
