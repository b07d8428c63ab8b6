import { randomUUID } from 'node:crypto';
import { AgentError, defineAgent, invoke, invoke$, observeRun } from '@rxagents/core';
import { firstValueFrom, Observable, toArray } from 'rxjs';
import { remoteAgent, RemoteLeaseLostError, serveAgent } from '../src';
import { describeRedis } from './support/describeRedis';
import { waitUntil } from './support/waitUntil';
import { waitingAgent } from './support/waitingAgent';

jest.setTimeout(60_000);

describeRedis('remote agents across a Redis restart', (server) => {
  it('completes a call in flight while Redis restarts (AOF on), with its whole text and no restart', async () => {
    const prefix = `rr-${randomUUID()}`;
    let sent = 0;
    let starts = 0;
    const chunks = 20;
    const teller = defineAgent(
      'teller',
      () =>
        new Observable<string>((subscriber) => {
          starts++;
          const timer = setInterval(() => {
            subscriber.next(`${sent} `);
            if (++sent === chunks) subscriber.complete();
          }, 50);
          return () => clearInterval(timer);
        }),
    );
    const worker = serveAgent(server().client(), teller, { prefix, claimIdleMs: 10_000, leaseCheckMs: 100, onError: () => undefined });
    const remote = remoteAgent(server().client(), 'teller', { prefix });
    const events = firstValueFrom(observeRun('story', 'x', (run) => invoke$(remote, 'x', { run })).pipe(toArray()));
    await waitUntil('the agent has streamed a few chunks', () => sent >= 3);
    await server().restart();
    const all = await events;
    await worker.close();
    expect(all.at(-1)).toMatchObject({ type: 'run-end', success: true, output: Array.from({ length: chunks }, (_, i) => `${i} `).join('') });
    expect(all.filter((e) => e.type === 'custom' && e.name === 'call-restarted')).toHaveLength(0);
    expect(starts).toBe(1);
  });
});

describeRedis(
  'remote agents across a Redis restart without persistence',
  (server) => {
    it('fails a call in flight with RemoteLeaseLostError once Redis is back without its keys, instead of waiting for ever', async () => {
      const prefix = `rn-${randomUUID()}`;
      const slow = waitingAgent('slow');
      const worker = serveAgent(server().client(), slow.agent, { prefix, claimIdleMs: 10_000, leaseCheckMs: 100, onError: () => undefined });
      const remote = remoteAgent(server().client(), 'slow', { prefix, leaseMs: 600 });
      const failure = invoke(remote, 'x', { timeout: 20_000 }).catch((error: unknown) => error);
      await waitUntil('the worker runs the call', () => slow.started === 1);
      await server().restart();
      const error = (await failure) as AgentError;
      await worker.close();
      expect(error).toBeInstanceOf(AgentError);
      expect(error.cause).toBeInstanceOf(RemoteLeaseLostError);
    });
  },
  false,
  { appendOnly: false },
);
