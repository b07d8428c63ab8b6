import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { lastValueFrom, toArray } from 'rxjs';
import { MemoryRunStore, type RunEvent } from '@rxagents/core';
import { RedisRunStore } from '../src';
import { startChainChild, waitUntil, type ChildLine } from '../../core/test/support/chainChild';
import { rootEnd, tree } from '../../core/test/support/durable';
import { CHAIN, CHAIN_OUTPUT, callCounts, chainRun$, endedIn, expectedCounts, journalEvents, resumeChain } from '../../core/test/support/durableChain';
import { describeRedis } from './support/describeRedis';
import { freshDirectories } from '../../core/test/support/freshDirectories';

jest.setTimeout(90_000);

const SCRIPT = 'packages/redis/test/support/durableChainProcess.ts';
const LEASE_TTL_MS = 500;
const RUN_ID = 'chain-1';

const freshDirectory = freshDirectories('rxagents-redis-durable-');

let uninterrupted: RunEvent[] = [];
beforeAll(async () => {
  uninterrupted = await lastValueFrom(chainRun$(new MemoryRunStore(), RUN_ID, LEASE_TTL_MS, { countsDir: await freshDirectory() }).pipe(toArray()));
});

const onceBut = (agentId: string): Map<string, number> => new Map(CHAIN.map((id) => [id, id === agentId ? 2 : 1]));
const deltasOf = (agentId: string, count: number) => (journal: RunEvent[]) => journal.filter((event) => event.type === 'text-delta' && event.agentId === agentId).length >= count;
const callStarted = (agentId: string) => (journal: RunEvent[]) => journal.some((event) => event.type === 'call-start' && event.agentId === agentId);

/** Whether something listens on 127.0.0.1:`port`. */
const listening = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

describeRedis('a durable chain on the Redis store across processes', (server) => {
  const killAndResume = async (hold: string, journaled: (journal: RunEvent[]) => boolean, killWhen?: (line: ChildLine) => boolean) => {
    const prefix = `dp-${randomUUID()}`;
    const countsDir = await freshDirectory();
    const store = new RedisRunStore(server().client(), { prefix });
    const running = startChainChild(SCRIPT, { REDIS_PORT: String(server().port), PREFIX: prefix, COUNTS_DIR: countsDir, RUN_ID, LEASE_TTL_MS: String(LEASE_TTL_MS), HOLD: hold }, killWhen);
    if (killWhen === undefined) {
      await waitUntil('the journal holds the kill point', async () => journaled(await journalEvents(store, RUN_ID)));
      await running.kill();
    }
    expect(await running.exited).toBe('SIGKILL');
    const journal = await journalEvents(store, RUN_ID);
    const before = callCounts(countsDir);
    const events = await resumeChain(store, RUN_ID, LEASE_TTL_MS, { countsDir });
    const after = callCounts(countsDir);
    expect(rootEnd(events)).toMatchObject({ success: true, output: CHAIN_OUTPUT });
    expect(tree(events)).toEqual(tree(uninterrupted));
    expect(after).toEqual(expectedCounts(journal, before));
    expect((await store.summary(RUN_ID))?.status).toBe('succeeded');
    return { journal, before, after };
  };

  it('SIGKILLed after the call-start of call 3: resumed from Redis, the same result, call 3 runs twice and every other call once', async () => {
    const { journal, after } = await killAndResume('a3:0', callStarted('a3'));
    expect([...endedIn(journal)]).toEqual(['a1', 'a2']);
    expect(after).toEqual(onceBut('a3'));
  });

  it('SIGKILLed mid-delta in call 5: resumed from Redis, the same result, call 5 runs twice and every other call once', async () => {
    const { journal, after } = await killAndResume('a5:2', deltasOf('a5', 2));
    expect([...endedIn(journal)]).toEqual(['a1', 'a2', 'a3', 'a4']);
    expect(after).toEqual(onceBut('a5'));
  });

  it('SIGKILLed as it reports the call-end of call 4: the calls the journal ended run once, the rest once more', async () => {
    const { journal, before } = await killAndResume('', () => true, (line) => line.type === 'call-end' && line.agentId === 'a4');
    for (const id of CHAIN.slice(0, 4)) expect(before.get(id)).toBe(1);
    const ended = [...endedIn(journal)];
    expect(ended).toEqual(CHAIN.slice(0, ended.length));
  });

  it('a run whose Redis goes down mid-run ends with RunStoreError; once Redis is back it resumes to the same result', async () => {
    const prefix = `dp-${randomUUID()}`;
    const countsDir = await freshDirectory();
    // A client that gives up on a command after one reconnection attempt, so the run sees the outage.
    const quick = server().client({ maxRetriesPerRequest: 1, retryStrategy: () => 50 });
    quick.on('error', () => undefined);
    const store = new RedisRunStore(quick, { prefix });
    const gate = join(countsDir, 'gate');
    const events: RunEvent[] = [];
    const done = lastValueFrom(chainRun$(store, RUN_ID, LEASE_TTL_MS, { countsDir, gate, gatedAgent: 'a4', hold: { agentId: 'a4', chunk: 1 } }).pipe(toArray())).then((all) => events.push(...all));
    const reader = new RedisRunStore(server().client(), { prefix });
    await waitUntil('the journal holds the start of call 4', async () => callStarted('a4')(await journalEvents(reader, RUN_ID)));
    // Redis goes away while a4 waits; a4 then streams its first chunk into the outage (and stops there).
    const back = server().restart(1_500);
    await waitUntil('Redis is down', async () => !(await listening(server().port)));
    writeFileSync(gate, '');
    await done;
    expect(events.at(-1)).toMatchObject({ type: 'run-end', parentCallId: null, success: false, error: { name: 'RunStoreError', code: 'RUN_STORE_FAILED', retryable: true } });
    await back;
    const journal = await journalEvents(reader, RUN_ID);
    expect(rootEnd(journal)).toBeUndefined();
    const before = callCounts(countsDir);
    const resumed = await resumeChain(store, RUN_ID, LEASE_TTL_MS, { countsDir });
    expect(rootEnd(resumed)).toMatchObject({ success: true, output: CHAIN_OUTPUT });
    expect(tree(resumed)).toEqual(tree(uninterrupted));
    expect(callCounts(countsDir)).toEqual(expectedCounts(journal, before));
    expect(callCounts(countsDir)).toEqual(onceBut('a4'));
    expect((await reader.summary(RUN_ID))?.status).toBe('succeeded');
  });
});
