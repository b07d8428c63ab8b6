import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import type { RunEvent, RunRecord } from '../../src';
import { FileRunStore, type StaleRecordReport } from '../../src/file-store';

/** How the other process is paused: by a SIGSTOP at whatever moment, or by one it sends itself just before a write. */
export type PauseAt = 'any-moment' | 'before-a-write';

/** What one takeover did to the run's journal. */
export interface TakeoverOutcome {
  /** Whether the journal read back whole (and the error when it did not). */
  readonly readable: boolean;
  readonly error: string | undefined;
  /** Whether its seqs run 0, 1, 2... and no record of the paused process follows one of the new holder's. */
  readonly story: boolean;
  /** The paused process's records in the journal, and the appends it saw resolve (and the one in flight). */
  readonly zombieTexts: readonly string[];
  readonly resolved: readonly string[];
  readonly inFlight: string;
  /** How the paused process's loop ended: `RUN_LEASE_LOST` when it was refused. */
  readonly ending: string;
  /** The new holder's epoch, the records it appended, and those the journal holds. */
  readonly epoch: number;
  readonly holderTexts: readonly string[];
  readonly expectedHolderTexts: readonly string[];
  readonly stale: readonly StaleRecordReport[];
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Whether process `pid` is stopped (Linux: its state in /proc is `T`). */
function stopped(pid: number): boolean {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).startsWith('T');
}

/**
 * One takeover on a real file store: another process holds run `runId`'s lease and appends under it in a
 * loop; it is stopped (SIGSTOP) past its lease, this process takes the run over and appends, then the
 * other one is continued (SIGCONT) and goes on until it is refused; then the journal is read back.
 * `where.script` is `fileZombie.ts` (the other process), `where.cwd` the repository's root.
 */
export async function takeover(directory: string, runId: string, pauseAt: PauseAt, where: { readonly script: string; readonly cwd: string }, ttlMs = 1_500): Promise<TakeoverOutcome> {
  const stale: StaleRecordReport[] = [];
  const store = new FileRunStore({ directory, onTornRecord: () => undefined, onStaleRecord: (report) => stale.push(report) });
  const child = spawn(process.execPath, ['--import', 'tsx', where.script], {
    cwd: where.cwd,
    env: { ...process.env, DIRECTORY: directory, RUN: runId, TTL_MS: String(ttlMs), STOP_BEFORE_WRITE: pauseAt === 'before-a-write' ? '1' : '0' },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const leased = await lines.next();
  if (leased.done === true || !String(leased.value).startsWith('leased ')) throw new Error(`the other process did not take the lease: ${String(leased.value)}`);
  const pid = child.pid as number;
  try {
    while (((await store.summary(runId))?.records ?? 0) < 20) await sleep(5);
    if (pauseAt === 'any-moment') process.kill(pid, 'SIGSTOP');
    else child.stdin.write('stop\n');
    while (!stopped(pid)) await sleep(5);
    let lease;
    for (;;) {
      try {
        lease = await store.acquireLease(runId, 60_000);
        break;
      } catch (error) {
        if ((error as { code?: unknown }).code !== 'RUN_LEASED') throw error;
        await sleep(50);
      }
    }
    const expectedHolderTexts: string[] = [];
    const append = async (texts: string[], last: RunEvent[] = []) => {
      await store.append(runId, [...texts.map((text): RunEvent => ({ type: 'text-delta', runId, callId: 'run/1', parentCallId: 'run', at: 2, agentId: 'holder', delta: text })), ...last], lease);
      expectedHolderTexts.push(...texts);
    };
    for (let index = 0; index < 3; index++) await append([`holder-${index} `]);
    process.kill(pid, 'SIGCONT');
    const result = await lines.next();
    const { appended, inFlight, ending } = JSON.parse(String(result.value)) as { appended: string[]; inFlight: string; ending: string };
    await append(['holder-end '], [{ type: 'run-end', runId, callId: 'run', parentCallId: null, at: 3, success: true, durationMs: 3 }]);
    let records: RunRecord[] = [];
    let error: string | undefined;
    try {
      for await (const record of new FileRunStore({ directory, onTornRecord: () => undefined, onStaleRecord: (report) => stale.push(report) }).read(runId)) records.push(record);
    } catch (failure) {
      error = String(failure);
    }
    const texts = records.flatMap((record) => (record.event.type === 'text-delta' ? [record.event.delta] : []));
    const firstHolder = texts.findIndex((text) => text.startsWith('holder-'));
    const story = records.every((record, index) => record.seq === index) && firstHolder !== -1 && texts.slice(firstHolder).every((text) => text.startsWith('holder-'));
    return {
      readable: error === undefined,
      error,
      story,
      zombieTexts: [...new Set(texts.filter((text) => text.startsWith('zombie-')))],
      resolved: appended,
      inFlight,
      ending,
      epoch: lease.epoch,
      holderTexts: texts.filter((text) => text.startsWith('holder-')),
      expectedHolderTexts,
      stale,
    };
  } finally {
    try {
      process.kill(pid, 'SIGCONT');
      child.kill('SIGKILL');
    } catch {
      // already gone
    }
  }
}
