import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { observeRun, type RunEvent } from '@rxagents/core';
import { type ConversationState, type ExecutionResult, Patterns } from '@rxagents/patterns';
import type { Redis } from 'ioredis';
import { firstValueFrom, tap, toArray } from 'rxjs';
import { remoteAgent } from '../src';
import { describeRedis } from './support/describeRedis';
import { killProcess, spawnProcess } from './support/spawnProcess';
import { waitUntil } from './support/waitUntil';

jest.setTimeout(60_000);

describeRedis('a debate across worker processes', (server) => {
  const children: ChildProcess[] = [];
  afterEach(async () => {
    await Promise.all(children.splice(0).map((child) => killProcess(child)));
  });

  it('completes with every turn exactly once, one attempt each, when a worker is SIGKILLed mid-call', async () => {
    const prefix = `debate-${randomUUID()}`;
    const redis: Redis = server().client();
    // The second speaker's second turn is held after two chunks until the test releases it.
    const env = { REDIS_PORT: String(server().port), PREFIX: prefix, HOLD: 'con 2' };
    const workers = await Promise.all([1, 2, 3].map(() => spawnProcess('support/debateWorker.ts', env)));
    children.push(...workers);
    const debaters = ['pro', 'con', 'mod'].map((id) => remoteAgent(server().client(), id, { prefix }));
    const debate = Patterns.debate({ agents: debaters, maxRounds: 3 });

    let result: ExecutionResult<ConversationState> | undefined;
    const run = firstValueFrom(
      observeRun('debate', 'Tabs or spaces?', (context) => debate.execute$('Tabs or spaces?', { run: context }).pipe(tap((snapshot) => (result = snapshot)))).pipe(toArray()),
    );
    const chunks = async () => (await redis.lrange(`${prefix}:test:chunks`, 0, -1)).map((line) => line.split(' '));
    await waitUntil('the held turn has streamed two chunks', async () => (await chunks()).some(([, id, round, k]) => id === 'con' && round === '2' && k === '1'));
    const victimPid = (await chunks()).find(([, id, round]) => id === 'con' && round === '2')?.[0];
    const victim = workers.find((worker) => String(worker.pid) === victimPid);
    expect(victim).toBeDefined();
    await killProcess(victim as ChildProcess, 'SIGKILL');
    await redis.set(`${prefix}:test:release`, '1');
    const events: RunEvent[] = await run;

    expect(events.at(-1)).toMatchObject({ type: 'run-end', success: true });
    expect(result?.status).toBe('completed');
    // Every turn once, in order, each the text of one attempt on one worker: `<pid>:0 <pid>:1 ... <pid>:4 `.
    const turns = (result?.state.messages ?? []).map((message) => ({ speaker: message.speaker, content: message.content }));
    expect(turns.map((turn) => turn.speaker)).toEqual(['pro', 'con', 'mod', 'pro', 'con', 'mod', 'pro', 'con', 'mod']);
    for (const { content } of turns) {
      const pid = /^(\d+):0 /.exec(content)?.[1];
      expect(content).toBe(Array.from({ length: 5 }, (_, k) => `${String(pid)}:${k} `).join(''));
    }
    const restartedTurn = turns[4];
    expect(restartedTurn?.content.startsWith(`${String(victimPid)}:`)).toBe(false);
    // The caller's run shows the restart, under the call of the turn that was restarted.
    const restarts = events.filter((event) => event.type === 'custom' && event.name === 'call-restarted');
    expect(restarts).toHaveLength(1);
    expect(restarts[0]).toMatchObject({ data: { agentId: 'con', attempt: 2 } });
    const conCalls = events.filter((event) => event.type === 'call-start' && event.agentId === 'con');
    expect(restarts[0]?.callId).toBe(conCalls[1]?.callId);
    // One remote call per turn: no turn was started twice by the caller.
    expect(events.filter((event) => event.type === 'call-start' && ['pro', 'con', 'mod'].includes(event.agentId))).toHaveLength(9);
  });
});
