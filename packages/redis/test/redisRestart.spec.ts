import { randomUUID } from 'node:crypto';
import { defineAgent, invoke$, observeRun } from '@rxagents/core';
import { firstValueFrom, Observable, toArray } from 'rxjs';
import { remoteAgent, serveAgent } from '../src';
import { describeRedis } from './support/describeRedis';
import { waitUntil } from './support/waitUntil';

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
