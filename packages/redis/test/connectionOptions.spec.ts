import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ChoreographyEngine } from '@rxagents/choreography';
import { defineAgent, invoke } from '@rxagents/core';
import { Redis } from 'ioredis';
import { firstValueFrom, Observable, toArray } from 'rxjs';
import { redisChannel, redisEventBus, remoteAgent, serveAgent } from '../src';
import { describeRedis } from './support/describeRedis';
import { AGENT_IDS, reviewSpec } from './support/reviewSpec';
import { waitUntil } from './support/waitUntil';
import { waitingAgent } from './support/waitingAgent';

jest.setTimeout(30_000);

/** The least-privilege ACL line the scale-out guide gives, read from the guide itself so the two cannot drift apart. */
function documentedAclLine(): string {
  const guide = readFileSync(join(__dirname, '../../../docs/scale-out.md'), 'utf8');
  const line = guide.split('\n').find((text) => text.trim().startsWith('ACL SETUSER rxagents '));
  if (line === undefined) throw new Error('docs/scale-out.md has no "ACL SETUSER rxagents" line');
  return line.trim();
}

describeRedis('connection options', (server) => {
  const DB = 3;
  let password: string;
  // Closed by the server's `stop`, before the server goes (a client left reconnecting would keep jest waiting).
  const client = (): Redis => server().client({ username: 'rxagents', password, db: DB });

  beforeAll(async () => {
    password = randomBytes(24).toString('hex');
    const [, , ...rules] = documentedAclLine().split(/\s+/);
    const admin = server().client();
    // The guide's user, with this test's password in place of the placeholder.
    await admin.call('ACL', 'SETUSER', ...rules.map((rule) => (rule.startsWith('>') ? `>${password}` : rule)));
  });

  it('refuses the user with a wrong password, so the test below runs as the user it created', async () => {
    await expect(server().client().call('AUTH', 'rxagents', 'wrong')).rejects.toThrow(/WRONGPASS/);
  });

  it('remote calls, a channel and a shared choreography run work as the documented ACL user, in the chosen database', async () => {
    // Failures the workers and buses survive (a NOPERM among them) are reported here, not swallowed.
    const reported: unknown[] = [];
    const onError = (error: unknown): void => void reported.push(error);
    // Remote agents: a streamed reply, and a cancelled call.
    const writer = defineAgent('writer', () => new Observable<string>((subscriber) => {
      subscriber.next('Hello ');
      subscriber.next('there');
      subscriber.complete();
    }));
    const sleeper = waitingAgent('sleeper');
    const workers = [serveAgent(client(), writer, { leaseCheckMs: 50, onError }), serveAgent(client(), sleeper.agent, { leaseCheckMs: 50, onError })];
    expect(await invoke(remoteAgent(client(), 'writer'), 'hi')).toBe('Hello there');
    const cancel = new AbortController();
    const pending = invoke(remoteAgent(client(), 'sleeper'), 'zzz', { signal: cancel.signal });
    await waitUntil('the sleeper has started', () => workers[1]?.running === 1);
    cancel.abort();
    await expect(pending).rejects.toBeDefined();
    await waitUntil('the worker aborted the sleeper', () => sleeper.aborted === 1);
    await Promise.all(workers.map((worker) => worker.close()));

    // A channel between two clients.
    const producer = redisChannel<string>(client(), 'acl-channel', { pollMs: 5 });
    const consumer = redisChannel<string>(client(), 'acl-channel', { pollMs: 5 });
    const received = firstValueFrom(consumer.asObservable().pipe(toArray()));
    await waitUntil('the consumer is registered', async () => (await consumer.sharedMetrics()).subscriberCount === 1);
    for (const item of ['a', 'b', 'c']) expect(await producer.offer(item)).toBe(true);
    await producer.complete();
    expect(await received).toEqual(['a', 'b', 'c']);

    // A choreography run shared by two engines, each hosting half of the agents.
    const echo = (id: string) => defineAgent(id, async (input: string) => `${input.split('\n')[0]} done`);
    const [left, right] = [AGENT_IDS.slice(0, 2), AGENT_IDS.slice(2)];
    const engine = (hosted: readonly string[], others: readonly string[]) =>
      new ChoreographyEngine({
        spec: reviewSpec(),
        agents: Object.fromEntries(hosted.map((id) => [id, echo(id)])),
        remoteAgents: [...others],
        bus: redisEventBus(client(), { runId: 'acl-run', onError }),
        logger: { warn: () => undefined },
      });
    const results = await Promise.all([engine(left, right).execute({ input: 'x' }), engine(right, left).execute({ input: 'x' })]);
    for (const result of results) expect(result).toMatchObject({ success: true, timedOut: false, pending: [] });
    expect(results[0]?.stepResults.map((step) => step.interactionId).sort()).toEqual(['merge', 'plan', 'review', 'w1', 'w2', 'w3', 'w4']);
    expect(results[0]?.stepResults).toEqual(results[1]?.stepResults);

    expect(reported).toEqual([]);

    // Everything was written to the chosen database, nothing to database 0.
    const admin = server().client();
    expect(await admin.dbsize()).toBe(0);
    await admin.select(DB);
    const [, keys] = await admin.scan('0', 'MATCH', 'rxagents:*', 'COUNT', 1000);
    expect(keys.some((key) => key.startsWith('rxagents:agent:{writer}'))).toBe(true);
    expect(keys.some((key) => key.startsWith('rxagents:channel:{acl-channel}'))).toBe(true);
    expect(keys.some((key) => key.startsWith('rxagents:run:{acl-run}'))).toBe(true);
  });
});
