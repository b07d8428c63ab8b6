import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { invoke$, observeRun } from '@rxagents/core';
import { tap } from 'rxjs';
import { remoteAgent } from '@rxagents/redis';
import { createRunRegistry } from '@rxagents/web';
import { describeRedis } from '../packages/redis/test/support/describeRedis';
import { killProcess, spawnProcess } from '../packages/redis/test/support/spawnProcess';
import { waitUntil } from '../packages/redis/test/support/waitUntil';

jest.setTimeout(60_000);

// A page answers, through the run registry of the caller's process, a question an agent on a Redis worker asked.
describeRedis('a run registry answers the question of an agent on a Redis worker', (server) => {
  const children: ChildProcess[] = [];
  afterEach(async () => {
    await Promise.all(children.splice(0).map((child) => killProcess(child)));
  });

  it('lists the question, answers it over HTTP (a bad answer is a 422 and it stays open), and the run ends with the answer', async () => {
    const prefix = `rr-${randomUUID()}`;
    children.push(await spawnProcess('support/askingWorker.ts', { REDIS_PORT: String(server().port), PREFIX: prefix }));
    const registry = createRunRegistry();
    const asker = remoteAgent(server().client(), 'asker', { prefix });
    let output: unknown;
    const events$ = observeRun('trip', 'days', (run) => invoke$(asker, 'days', { run })).pipe(tap((event) => event.type === 'run-end' && event.parentCallId === null && (output = event.output)));
    const { runId } = registry.start(events$);
    await waitUntil('the registry lists the question', () => registry.pending(runId).length === 1);
    const [question] = registry.pending(runId);
    const post = (answer: unknown) => registry.handleAnswer(runId, new Request('http://127.0.0.1/answer', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ interruptId: question?.interruptId, answer }) }));

    expect((await post(0)).status).toBe(422);
    expect(registry.pending(runId)).toHaveLength(1);
    expect((await post(4)).status).toBe(204);
    await waitUntil('the run ended', () => registry.list().find((run) => run.runId === runId)?.status !== 'running');
    expect(registry.list().find((run) => run.runId === runId)?.status).toBe('succeeded');
    expect(output).toBe('A 4-day plan');
    expect(registry.pending(runId)).toEqual([]);
    registry.close();
  });
});
