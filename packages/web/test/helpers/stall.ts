import { spawn } from 'node:child_process';
import { asyncScheduler, map, Subject, switchMap, take, of, type Observable, type SchedulerLike } from 'rxjs';
import { z } from 'zod';
import { askForInput, defineAgent, invoke$, type RunContext, type RunEvent, type RunEventOf, type RunStore } from '@rxagents/core';
import type { DurableRunRegistry } from '@rxagents/web';
import { nextInterrupt } from './answers';

/** The runs of a registry, by name. */
export type Runs = ReadonlyMap<string, (input: string) => (run: RunContext) => Observable<unknown>>;

/** Blocks this process's event loop for `ms` of real time, and then until `until()` holds: no timer, no I/O callback, no lease renewal runs meanwhile. */
export function blockEventLoop(ms: number, until: () => boolean = () => true): void {
  const end = Date.now() + ms;
  while (Date.now() < end || !until()) {
    // busy
  }
}

/** Polls `done()` every 10 ms of real time until it holds, for at most `capMs`. */
export async function eventually(done: () => Promise<boolean> | boolean, capMs = 10_000): Promise<void> {
  const cap = Date.now() + capMs;
  while (!(await done())) {
    if (Date.now() > cap) throw new Error(`eventually: the condition did not hold within ${capMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** A clock `aheadMs` ahead of this one's: another host's store, for which this process's lease has lapsed. */
export const clockAhead = (aheadMs: number): SchedulerLike => ({
  now: () => asyncScheduler.now() + aheadMs,
  schedule: asyncScheduler.schedule.bind(asyncScheduler) as SchedulerLike['schedule'],
});

export async function journal(store: RunStore, runId: string): Promise<RunEvent[]> {
  const events: RunEvent[] = [];
  for await (const record of store.read(runId)) events.push(record.event);
  return events;
}

export const rootEnd = async (store: RunStore, runId: string): Promise<RunEvent | undefined> =>
  (await journal(store, runId)).find((event) => event.type === 'run-end' && event.parentCallId === null);

/** How many times the journal shows the agent `agentId` called (each attempt at its place). */
export const callsIn = async (store: RunStore, runId: string, agentId: string): Promise<number> =>
  (await journal(store, runId)).filter((event) => event.type === 'call-start' && event.agentId === agentId).length;

/**
 * A trip planner whose agent asks how many days, once per call; after `hold()`, a call waits for
 * `release()` before it asks (and calls after it do not).
 */
export function tripRuns(): { runs: Runs; hold: () => void; release: () => void } {
  let held = false;
  const gate = new Subject<void>();
  const planner = defineAgent('planner', (input, { run }) =>
    (held ? gate.pipe(take(1)) : of(undefined)).pipe(
      switchMap(() => askForInput(run!, `How many days in ${input}?`, { schema: z.number().int().min(1) })),
      map((days) => `${days} days in ${input}`),
    ),
  );
  const runs: Runs = new Map([['trip', (input: string) => (run: RunContext) => invoke$(planner, input, { run })]]);
  return { runs, hold: () => void (held = true), release: () => ((held = false), gate.next()) };
}

/**
 * A process of its own that opens one connection to `url`'s host per answer at once and, once told
 * (`go()`), posts each answer's `body` to `url`'s host at its `path` and then creates `marker`: what it
 * sent waits in this process's sockets while this process is blocked. `statuses` are the status lines it
 * got back, in order.
 */
export function answersFromAnotherProcess(
  url: string,
  answers: readonly { readonly path: string; readonly body: string }[],
  marker: string,
): { ready: Promise<void>; go: () => void; statuses: Promise<string[]> } {
  const { hostname, port } = new URL(url);
  const script = `
    const net = require('node:net');
    const fs = require('node:fs');
    const answers = ${JSON.stringify(answers)};
    const replies = answers.map(() => '');
    let connected = 0;
    let written = 0;
    let ended = 0;
    const sockets = answers.map((answer, i) => {
      const socket = net.connect(${Number(port)}, ${JSON.stringify(hostname)}, () => {
        if (++connected === answers.length) process.stdout.write('connected\\n');
      });
      socket.on('data', (chunk) => (replies[i] += chunk));
      socket.on('end', () => {
        if (++ended < answers.length) return;
        process.stdout.write(JSON.stringify(replies.map((reply) => reply.split('\\r\\n')[0])) + '\\n');
        process.exit(0);
      });
      return socket;
    });
    process.stdin.once('data', () => {
      answers.forEach(({ path, body }, i) => {
        const head = 'POST ' + path + ' HTTP/1.1\\r\\nHost: x\\r\\nContent-Type: application/json\\r\\nContent-Length: ' + Buffer.byteLength(body) + '\\r\\nConnection: close\\r\\n\\r\\n';
        sockets[i].write(head + body, () => {
          if (++written === answers.length) fs.writeFileSync(${JSON.stringify(marker)}, '');
        });
      });
    });
  `;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['pipe', 'pipe', 'inherit'] });
  let output = '';
  let connected!: () => void;
  const ready = new Promise<void>((resolve) => (connected = resolve));
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
    if (output.includes('connected\n')) connected();
  });
  const statuses = new Promise<string[]>((resolve) =>
    child.on('exit', () => {
      const last = output.replace('connected\n', '').trim();
      resolve(last === '' ? [] : (JSON.parse(last) as string[]));
    }),
  );
  return { ready, go: () => void child.stdin.write('go\n'), statuses };
}

/** Starts a run of `trip` (see {@link tripRuns}) in `registry` and resolves once it asked its question and `store` journaled it. */
export async function askingTrip(registry: DurableRunRegistry, store: RunStore): Promise<{ runId: string; asked: RunEventOf<'interrupt'> }> {
  const { runId } = registry.start('trip', 'Lisbon');
  const asked = await nextInterrupt(runId);
  await eventually(async () => (await journal(store, runId)).some((event) => event.type === 'interrupt'));
  return { runId, asked };
}
