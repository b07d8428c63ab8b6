import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { lastValueFrom, toArray } from 'rxjs';
import { MemoryRunStore, RunLeasedError, type RunEvent } from '../src';
import { FileRunStore, type TornRecordReport } from '@rxagents/core/file-store';
import { type ChainChild, type ChildLine, startChainChild, waitUntil } from './support/chainChild';
import { rootEnd, tree } from './support/durable';
import { CHAIN, CHAIN_OUTPUT, callCounts, chainRun$, endedIn, expectedCounts, type Hold, journalEvents, resumeChain } from './support/durableChain';
import { freshDirectories } from './support/freshDirectories';
import { itOnTmpfs, onSmallDisk } from './support/smallDisk';

jest.setTimeout(90_000);

const SCRIPT = 'packages/core/test/support/durableChainProcess.ts';
const LEASE_TTL_MS = 500;
const RUN_ID = 'chain-1';
/** The journal file of RUN_ID in a store's directory. */
const journalFile = (directory: string): string => join(directory, `r-${RUN_ID}.jsonl`);

const freshDirectory = freshDirectories('rxagents-durable-processes-');

let uninterrupted: RunEvent[] = [];
beforeAll(async () => {
  uninterrupted = await lastValueFrom(chainRun$(new MemoryRunStore(), RUN_ID, LEASE_TTL_MS, { countsDir: await freshDirectory() }).pipe(toArray()));
  expect(rootEnd(uninterrupted)).toMatchObject({ success: true, output: CHAIN_OUTPUT });
});

const child = (directory: string, env: Record<string, string> = {}, killWhen?: (line: ChildLine) => boolean): ChainChild =>
  startChainChild(SCRIPT, { DIRECTORY: directory, RUN_ID, LEASE_TTL_MS: String(LEASE_TTL_MS), ...env }, killWhen);

/** Runs the chain in a child held at `hold`, and SIGKILLs it once the journal holds what `journaled` asks for. */
async function killHeld(directory: string, hold: Hold, journaled: (journal: RunEvent[]) => boolean): Promise<void> {
  const running = child(directory, { HOLD: `${hold.agentId}:${hold.chunk}` });
  const store = new FileRunStore({ directory, onTornRecord: () => undefined });
  await waitUntil('the journal holds the kill point', async () => journaled(await journalEvents(store, RUN_ID).catch(() => [])));
  await running.kill();
  expect(await running.exited).toBe('SIGKILL');
}

/** Waits for a killed process's lease to lapse: taking it succeeds (and it is given back at once). */
async function leaseLapsed(store: FileRunStore): Promise<void> {
  await waitUntil('the killed process lease lapsed', () =>
    store.acquireLease(RUN_ID, LEASE_TTL_MS).then(
      (lease) => store.releaseLease(lease).then(() => true),
      (error: unknown) => {
        if (error instanceof RunLeasedError) return false;
        throw error;
      },
    ),
  );
}

interface Resumed {
  readonly journal: RunEvent[];
  readonly before: Map<string, number>;
  readonly after: Map<string, number>;
  readonly events: RunEvent[];
  readonly torn: TornRecordReport[];
}

/**
 * Resumes the killed run here and checks what every resume must give: the uninterrupted run's output and
 * event tree, a succeeded journal, and each agent called once more exactly when the journal had no end
 * of its call (at most `maxCalls` times in all: twice after one kill).
 */
async function resumeAndCheck(directory: string, maxCalls = 2): Promise<Resumed> {
  const torn: TornRecordReport[] = [];
  const store = new FileRunStore({ directory, onTornRecord: (report) => torn.push(report) });
  const journal = await journalEvents(store, RUN_ID);
  const before = callCounts(directory);
  const events = await resumeChain(store, RUN_ID, LEASE_TTL_MS, { countsDir: directory });
  const after = callCounts(directory);
  expect(rootEnd(events)).toMatchObject({ success: true, output: CHAIN_OUTPUT });
  expect(tree(events)).toEqual(tree(uninterrupted));
  expect(after).toEqual(expectedCounts(journal, before));
  for (const id of CHAIN) expect(after.get(id)).toBeLessThanOrEqual(maxCalls);
  expect((await store.summary(RUN_ID))?.status).toBe('succeeded');
  return { journal, before, after, events, torn };
}

const callStarted = (agentId: string) => (journal: RunEvent[]) => journal.some((event) => event.type === 'call-start' && event.agentId === agentId);
const deltasOf = (agentId: string, count: number) => (journal: RunEvent[]) => journal.filter((event) => event.type === 'text-delta' && event.agentId === agentId).length >= count;
/** Counts where every agent was called once but `agentId`, called twice. */
const onceBut = (agentId: string): Map<string, number> => new Map(CHAIN.map((id) => [id, id === agentId ? 2 : 1]));

/** The interrupted call of `agentId` was closed with CALL_INTERRUPTED and ran again as attempt 2 at the same place. */
function expectRanAgain(events: readonly RunEvent[], agentId: string): void {
  const starts = events.filter((event) => event.type === 'call-start' && event.agentId === agentId).map((event) => event.callId);
  expect(starts).toHaveLength(2);
  expect(starts[1]).toBe(`${starts[0]}#2`);
  expect(events).toContainEqual(expect.objectContaining({ type: 'call-error', callId: starts[0], error: expect.objectContaining({ code: 'CALL_INTERRUPTED' }) }));
}

describe('a durable chain whose process is SIGKILLed, resumed from the file store', () => {
  it.each([1, 3, 6])('killed after the call-start of call %i: that call runs again (twice in all), every other once', async (k) => {
    const directory = await freshDirectory();
    const agentId = CHAIN[k - 1]!;
    await killHeld(directory, { agentId, chunk: 0 }, callStarted(agentId));
    const { journal, before, after, events } = await resumeAndCheck(directory);
    expect([...endedIn(journal)]).toEqual(CHAIN.slice(0, k - 1));
    expect(before).toEqual(new Map(CHAIN.map((id, index) => [id, index < k ? 1 : 0])));
    expect(after).toEqual(onceBut(agentId));
    expectRanAgain(events, agentId);
  });

  it.each([2, 5])('killed mid-delta in call %i: the call runs again from its start, its journaled deltas are not in the answer', async (k) => {
    const directory = await freshDirectory();
    const agentId = CHAIN[k - 1]!;
    await killHeld(directory, { agentId, chunk: 2 }, deltasOf(agentId, 2));
    const { journal, after, events } = await resumeAndCheck(directory);
    expect([...endedIn(journal)]).toEqual(CHAIN.slice(0, k - 1));
    expect(journal.filter((event) => event.type === 'text-delta' && event.agentId === agentId)).toHaveLength(2);
    expect(after).toEqual(onceBut(agentId));
    expectRanAgain(events, agentId);
  });

  it.each([1, 3, 5])('killed as it reports the call-end of call %i: the calls the journal ended run once, the rest once more', async (k) => {
    const directory = await freshDirectory();
    const agentId = CHAIN[k - 1]!;
    const running = child(directory, {}, (line) => line.type === 'call-end' && line.agentId === agentId);
    expect(await running.exited).toBe('SIGKILL');
    expect(running.lines.some((line) => line.outcome !== undefined)).toBe(false);
    const { journal, before } = await resumeAndCheck(directory);
    // The process had called every agent up to this one; the journal holds ends for a prefix of the chain.
    for (const id of CHAIN.slice(0, k)) expect(before.get(id)).toBe(1);
    const ended = [...endedIn(journal)];
    expect(ended).toEqual(CHAIN.slice(0, ended.length));
  });
});

describe('a run killed twice', () => {
  it('in the same call, first as it ran and then as it ran again: the call runs a third time as attempt 3, every other call once', async () => {
    const directory = await freshDirectory();
    await killHeld(directory, { agentId: 'a3', chunk: 1 }, deltasOf('a3', 1));
    // A second process resumes it and is killed in the same place: a3's second attempt said its first chunk.
    await leaseLapsed(new FileRunStore({ directory, onTornRecord: () => undefined }));
    await killHeld(directory, { agentId: 'a3', chunk: 1 }, deltasOf('a3', 2));
    const { journal, after, events } = await resumeAndCheck(directory, 3);
    expect([...endedIn(journal)]).toEqual(['a1', 'a2']);
    expect(after).toEqual(new Map(CHAIN.map((id) => [id, id === 'a3' ? 3 : 1])));
    const starts = events.filter((event) => event.type === 'call-start' && event.agentId === 'a3').map((event) => event.callId);
    expect(starts).toEqual(['run/2', 'run/2#2', 'run/2#3']);
    const interrupted = events.filter((event) => event.type === 'call-error' && event.error.code === 'CALL_INTERRUPTED').map((event) => event.callId);
    expect(interrupted).toEqual(['run/2', 'run/2#2']);
  });

  it('in two calls, each resume going further: each cut-off call runs twice, every other call once', async () => {
    const directory = await freshDirectory();
    await killHeld(directory, { agentId: 'a2', chunk: 2 }, deltasOf('a2', 2));
    await leaseLapsed(new FileRunStore({ directory, onTornRecord: () => undefined }));
    await killHeld(directory, { agentId: 'a5', chunk: 0 }, callStarted('a5'));
    const { journal, after } = await resumeAndCheck(directory);
    expect([...endedIn(journal)]).toEqual(['a1', 'a2', 'a3', 'a4']);
    expect(after).toEqual(new Map(CHAIN.map((id) => [id, id === 'a2' || id === 'a5' ? 2 : 1])));
  });
});

describe('a journal of a changed program', () => {
  it('a resume whose code asks a recorded call something else fails with RunDivergenceError, calls no agent and journals no end; the old code still resumes it', async () => {
    const directory = await freshDirectory();
    await killHeld(directory, { agentId: 'a4', chunk: 1 }, deltasOf('a4', 1));
    const store = new FileRunStore({ directory, onTornRecord: () => undefined });
    const journal = await journalEvents(store, RUN_ID);
    const before = callCounts(directory);
    const changed = await resumeChain(store, RUN_ID, LEASE_TTL_MS, { countsDir: directory, changedInput: 'a2' });
    expect(changed.at(-1)).toMatchObject({ type: 'run-end', parentCallId: null, success: false, error: { name: 'RunDivergenceError', code: 'RUN_DIVERGED' } });
    expect(callCounts(directory)).toEqual(before);
    const kept = await journalEvents(store, RUN_ID);
    expect(rootEnd(kept)).toBeUndefined();
    expect(kept.filter((event) => !(event.type === 'call-error' && event.error.code === 'CALL_INTERRUPTED'))).toEqual(journal);
    expect((await store.summary(RUN_ID))?.status).toBe('running');
    const { after } = await resumeAndCheck(directory);
    expect(after).toEqual(onceBut('a4'));
  });
});

describe('two processes resuming one killed run at once', () => {
  it('exactly one runs it; the other errors with RunLeasedError and prints no event', async () => {
    const directory = await freshDirectory();
    await killHeld(directory, { agentId: 'a3', chunk: 1 }, deltasOf('a3', 1));
    const store = new FileRunStore({ directory, onTornRecord: () => undefined });
    const journal = await journalEvents(store, RUN_ID);
    const before = callCounts(directory);
    await leaseLapsed(store);
    // Both resumers' agents wait for the gate, so the one that runs cannot finish before the other tried.
    const gate = join(directory, 'gate');
    const resumers = [child(directory, { WAIT: '1', GATE: gate }), child(directory, { WAIT: '1', GATE: gate })];
    await Promise.all(resumers.map((resumer) => resumer.line((line) => line.ready === true)));
    for (const resumer of resumers) resumer.go();
    const refused = await Promise.race(resumers.map((resumer) => resumer.line((line) => line.outcome !== undefined).then(() => resumer)));
    const ran = resumers.find((resumer) => resumer !== refused)!;
    expect(refused.lines.filter((line) => line.ready !== true)).toEqual([{ outcome: 'error', name: 'RunLeasedError', code: 'RUN_LEASED' }]);
    writeFileSync(gate, '');
    expect(await ran.line((line) => line.outcome !== undefined)).toEqual({ outcome: 'complete' });
    expect(ran.lines.at(-2)).toMatchObject({ type: 'run-end', callId: 'run', success: true });
    await Promise.all(resumers.map((resumer) => resumer.exited));
    const final = await journalEvents(store, RUN_ID);
    expect(rootEnd(final)).toMatchObject({ success: true, output: CHAIN_OUTPUT });
    expect(tree(final)).toEqual(tree(uninterrupted));
    expect(callCounts(directory)).toEqual(expectedCounts(journal, before));
    expect(callCounts(directory)).toEqual(onceBut('a3'));
  });
});

describe('a torn last line', () => {
  it('is dropped and reported, and the run resumes: a complete call-end in the torn append is not taken as a record', async () => {
    const directory = await freshDirectory();
    await killHeld(directory, { agentId: 'a4', chunk: 1 }, deltasOf('a4', 1));
    const store = new FileRunStore({ directory, onTornRecord: () => undefined });
    const journal = await journalEvents(store, RUN_ID);
    const a4 = journal.find((event) => event.type === 'call-start' && event.agentId === 'a4')!;
    // An append the kill cut off: a whole line saying a4's call ended, and half of the line that commits it.
    const seq = journal.length;
    const ended = { type: 'call-end', runId: RUN_ID, callId: a4.callId, parentCallId: 'run', at: a4.at + 1, agentId: 'a4', durationMs: 1 };
    const commit = JSON.stringify({ seq: seq + 1, epoch: 1, event: { type: 'call-start', runId: RUN_ID, callId: 'run/4', parentCallId: 'run', at: a4.at + 1, agentId: 'a5', input: 'x' }, appendedAt: a4.at + 1, status: 'running', crc: '00000000' });
    const tornText = `\n${JSON.stringify({ seq, epoch: 1, event: ended })}\n${commit.slice(0, commit.length >> 1)}`;
    // The torn append starts on the line after the journal's last (its leading newline makes a blank line).
    const line = readFileSync(journalFile(directory), 'utf8').split('\n').length;
    appendFileSync(journalFile(directory), tornText);
    const { torn, after, events } = await resumeAndCheck(directory);
    expect(torn[0]).toEqual({ runId: RUN_ID, file: journalFile(directory), line, bytes: Buffer.byteLength(tornText) });
    expect(after).toEqual(onceBut('a4'));
    expectRanAgain(events, 'a4');
    // The resume cut the torn end off: the journal reads back whole, with no report.
    const reports: TornRecordReport[] = [];
    const final = await journalEvents(new FileRunStore({ directory, onTornRecord: (report) => reports.push(report) }), RUN_ID);
    expect(reports).toEqual([]);
    expect(final.filter((event) => event.type === 'call-end' && event.agentId === 'a4')).toHaveLength(1);
  });
});

describe('a full disk', () => {
  itOnTmpfs('a run on a full disk is refused with a retryable RunStoreError before it starts, and nothing is read back as a record', async () => onSmallDisk(await freshDirectory(), async (directory, fill) => {
    await fill();
    const store = new FileRunStore({ directory });
    const failure = await lastValueFrom(chainRun$(store, RUN_ID, LEASE_TTL_MS, { countsDir: await freshDirectory() }).pipe(toArray())).catch((error: unknown) => error);
    expect(failure).toMatchObject({ name: 'RunStoreError', code: 'RUN_STORE_FAILED', retryable: true, cause: expect.objectContaining({ code: 'ENOSPC' }) });
    expect(await journalEvents(store, RUN_ID)).toEqual([]);
    expect(await store.summary(RUN_ID)).toBeUndefined();
  }));

  it('a disk that fills mid-run (a file size limit: a real partial write) ends the run with RunStoreError; the journal is whole and resumes to the same result', async () => {
    const directory = await freshDirectory();
    // The child runs under `ulimit -f 4`: the journal cannot grow past 4 KiB, so an append fails part way (EFBIG).
    const running = startChainChild(SCRIPT, { DIRECTORY: directory, RUN_ID, LEASE_TTL_MS: String(LEASE_TTL_MS) }, undefined, 4);
    const outcome = await running.line((line) => line.outcome !== undefined);
    expect(outcome).toEqual({ outcome: 'complete' });
    expect(running.lines.at(-2)).toMatchObject({ type: 'run-end', callId: 'run', success: false, error: { name: 'RunStoreError', code: 'RUN_STORE_FAILED' } });
    expect((await stat(journalFile(directory))).size).toBeLessThanOrEqual(4_096);
    // What the failed append wrote was cut back off: the file ends with a whole line.
    expect((await readFile(journalFile(directory), 'utf8')).endsWith('\n')).toBe(true);
    const { torn, journal } = await resumeAndCheck(directory);
    expect(torn).toEqual([]);
    expect(endedIn(journal).size).toBeGreaterThan(0);
    expect(endedIn(journal).size).toBeLessThan(CHAIN.length);
  });
});
