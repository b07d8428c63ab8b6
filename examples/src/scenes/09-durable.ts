import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { RunLeasedError, type RunEvent, type RunStore } from '@rxagents/core';
import { FileRunStore } from '@rxagents/core/file-store';
import { lastValueFrom, toArray } from 'rxjs';
import { durableDebate, durableRunId, leaseTtlMs } from '../durable/durableDebate';
import type { Scene } from '../Scene';

/** The call during which the first process is killed (the fifth call of the run), and how far into it. */
const KILL_AT_CALL = 5;
const KILL_AFTER_DELTAS = 2;

/**
 * The architecture debate, durable: a child process runs it journaled to a file store and is SIGKILLed in
 * the middle of a turn. This process then runs the same code on the same store and run id: the calls the
 * journal holds are answered from it (no agent is called for them), the turn that was cut off runs again,
 * and the debate goes on to its end. The transcript is the same as an uninterrupted run's.
 */
export const scene: Scene = {
  name: 'durable',
  title: 'a durable debate: its process is killed mid-turn, and another resumes it from the file store',
  async run() {
    const directory = mkdtempSync(join(tmpdir(), 'rxagents-demo-durable-'));
    try {
      await runUntilKilled(directory);
      const store = new FileRunStore({ directory });
      const before = await recordedCalls(store);
      const summary = await store.summary(durableRunId);
      console.log(`journal after the crash: ${summary?.records ?? 0} records, status ${summary?.status ?? 'none'}; ${before.ended.size} calls had ended`);

      const live: string[] = [];
      const events = await resume(store, (agentId) => live.push(agentId));
      // A call's place is its id without the attempt (`#2`): the cut-off call and its second attempt share one.
      const turns = new Map<string, number>();
      const turnOfPlace = new Map<string, number>();
      for (const event of events) {
        if (event.type !== 'call-start') continue;
        const place = event.callId.replace(/#\d+/g, '');
        let turn = turnOfPlace.get(place);
        if (turn === undefined) {
          turn = (turns.get(event.agentId) ?? 0) + 1;
          turns.set(event.agentId, turn);
          turnOfPlace.set(place, turn);
        }
        const interrupted = events.some((other) => other.type === 'call-error' && other.callId === event.callId && other.error.code === 'CALL_INTERRUPTED');
        const origin = interrupted
          ? 'cut off by the crash'
          : before.ended.has(event.callId)
            ? 'from the journal (not called again)'
            : place !== event.callId
              ? 'ran again after the resume (same idempotency key)'
              : 'ran live after the resume';
        console.log(`  ${event.agentId.padEnd(10)} turn ${turn}: ${origin}`);
      }
      const end = events.at(-1);
      console.log(`resumed run: ${end?.type === 'run-end' && end.success ? 'succeeded' : 'failed'}, ${live.length} agent calls made by this process`);

      const uninterrupted = await lastValueFrom(durableDebate().events$(undefined, 'uninterrupted').pipe(toArray()));
      const same = JSON.stringify(transcript(events)) === JSON.stringify(transcript(uninterrupted));
      console.log(`transcript (${transcript(events).length} messages) equals an uninterrupted run's: ${same ? 'yes' : 'NO'}`);
      if (!same) process.exitCode = 1;
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  },
};

/** Starts the debate in a child process and SIGKILLs it during its fifth call. */
async function runUntilKilled(directory: string): Promise<void> {
  const script = join(dirname(fileURLToPath(import.meta.url)), '..', 'durable', 'crashingProcess.ts');
  const child = spawn(process.execPath, ['--import', 'tsx', script, directory], { stdio: ['ignore', 'pipe', 'inherit'] });
  let calls = 0;
  let deltas = 0;
  let agent = '';
  createInterface({ input: child.stdout }).on('line', (line) => {
    const event = JSON.parse(line) as { type: string; agentId: string };
    if (event.type === 'call-start') {
      calls += 1;
      deltas = 0;
      agent = event.agentId;
    } else if (calls === KILL_AT_CALL && ++deltas === KILL_AFTER_DELTAS) {
      child.kill('SIGKILL');
    }
  });
  const signal = await new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_code, killed) => resolve(killed)));
  if (signal !== 'SIGKILL') throw new Error('the debate process ended before it could be killed');
  console.log(`process ${child.pid} killed (SIGKILL) while ${agent} was speaking (call ${KILL_AT_CALL} of the run)`);
}

/** The calls the journal holds an end for. */
async function recordedCalls(store: RunStore): Promise<{ ended: Set<string> }> {
  const ended = new Set<string>();
  for await (const { event } of store.read(durableRunId)) if (event.type === 'call-end') ended.add(event.callId);
  return { ended };
}

/** Resumes the run, waiting for the killed process's lease to lapse (it cannot give it back). */
async function resume(store: RunStore, onCall: (agentId: string) => void): Promise<RunEvent[]> {
  for (let waited = 0; ; waited += 250) {
    try {
      return await lastValueFrom(durableDebate(onCall).events$(store, durableRunId).pipe(toArray()));
    } catch (error) {
      if (!(error instanceof RunLeasedError) || waited > leaseTtlMs * 4) throw error;
      if (waited === 0) console.log(`waiting up to ${leaseTtlMs} ms for the killed process's lease to lapse`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}

/** Who said what, in order. */
function transcript(events: readonly RunEvent[]): string[] {
  return events.flatMap((event) => (event.type === 'message' ? [`${event.speaker}: ${event.content}`] : []));
}
