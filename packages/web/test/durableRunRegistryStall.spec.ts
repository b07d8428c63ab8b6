import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { map, type Observable } from 'rxjs';
import { z } from 'zod';
import { askForInput, defineAgent, invoke$, type RunContext, type RunEvent, type RunEventOf, type RunStore } from '@rxagents/core';
import { FileRunStore } from '@rxagents/core/file-store';
import { createRunRegistry, type DurableRunRegistry } from '@rxagents/web';
import { nextInterrupt, post } from './helpers/answers';
import { waitFor } from './helpers/durable';
import { serve } from './helpers/serve';

/** A lease short enough that a busy loop of a few times it outlasts it (real time: the stall is real). */
const LEASE_TTL_MS = 60;
const quiet = { heartbeatMs: Infinity, stallTimeoutMs: Infinity } as const;
type Runs = ReadonlyMap<string, (input: string) => (run: RunContext) => Observable<unknown>>;

/** Blocks this process's event loop for `ms` of real time, and at least until `until()` holds. */
function blockEventLoop(ms: number, until: () => boolean = () => true): void {
  const end = Date.now() + ms;
  while (Date.now() < end || !until()) {
    // busy: no timer, no I/O callback, no lease renewal runs meanwhile
  }
}

async function journal(store: RunStore, runId: string): Promise<RunEvent[]> {
  const events: RunEvent[] = [];
  for await (const record of store.read(runId)) events.push(record.event);
  return events;
}

const openInJournal = async (store: RunStore, runId: string): Promise<boolean> => (await journal(store, runId)).some((event) => event.type === 'interrupt');

const rootEnd = async (store: RunStore, runId: string): Promise<RunEvent | undefined> =>
  (await journal(store, runId)).find((event) => event.type === 'run-end' && event.parentCallId === null);

/** A trip planner whose agent asks how many days, once per call. */
function tripRuns(): Runs {
  const planner = defineAgent('planner', (input, { run }) =>
    askForInput(run!, `How many days in ${input}?`, { schema: z.number().int().min(1) }).pipe(map((days) => `${days} days in ${input}`)),
  );
  return new Map([['trip', (input: string) => (run: RunContext) => invoke$(planner, input, { run })]]);
}

/**
 * A process of its own that, once told (a line on its stdin), posts `body` to `url` over a plain socket
 * and then creates `marker`: what it sent waits in this process's socket while this process is blocked.
 * Resolves with the status line it got back.
 */
function answerFromAnotherProcess(url: string, body: string, marker: string): { ready: Promise<void>; go: () => void; status: Promise<string> } {
  const { hostname, port, pathname } = new URL(url);
  const script = `
    const net = require('node:net');
    const fs = require('node:fs');
    const body = ${JSON.stringify(body)};
    const socket = net.connect(${port}, ${JSON.stringify(hostname)}, () => {
      process.stdin.once('data', () => {
        const request = 'POST ${pathname} HTTP/1.1\\r\\nHost: x\\r\\nContent-Type: application/json\\r\\nContent-Length: ' + Buffer.byteLength(body) + '\\r\\nConnection: close\\r\\n\\r\\n' + body;
        socket.write(request, () => fs.writeFileSync(${JSON.stringify(marker)}, ''));
      });
      process.stdout.write('connected\\n');
    });
    let reply = '';
    socket.on('data', (chunk) => (reply += chunk));
    socket.on('end', () => { process.stdout.write(reply.split('\\r\\n')[0] + '\\n'); process.exit(0); });
  `;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['pipe', 'pipe', 'inherit'] });
  let output = '';
  let connected!: () => void;
  const ready = new Promise<void>((resolve) => (connected = resolve));
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
    if (output.includes('connected\n')) connected();
  });
  const status = new Promise<string>((resolve) => child.on('exit', () => resolve(output.replace('connected\n', '').trim())));
  return { ready, go: () => void child.stdin.write('go\n'), status };
}

describe('a durable run registry whose event loop is blocked longer than the lease while a question waits', () => {
  let directory: string;
  let store: FileRunStore;
  let registry: DurableRunRegistry;
  const runs = tripRuns();

  beforeEach(async () => {
    directory = await mkdtemp(join(tmpdir(), 'rxagents-stall-'));
    store = new FileRunStore({ directory });
    registry = createRunRegistry({ store, runs, leaseTtlMs: LEASE_TTL_MS, ...quiet });
  });
  afterEach(async () => {
    registry.close();
    await rm(directory, { recursive: true, force: true });
  });

  /** A run of `trip` that asked its question, the question journaled. */
  async function asking(): Promise<{ runId: string; asked: RunEventOf<'interrupt'> }> {
    const { runId } = registry.start('trip', 'Lisbon');
    const asked = await nextInterrupt(runId);
    await waitFor(() => openInJournal(store, runId));
    return { runId, asked };
  }

  async function completedWith(runId: string, output: string): Promise<void> {
    await waitFor(async () => (await store.summary(runId))?.status !== 'running', 5_000);
    expect(await rootEnd(store, runId)).toMatchObject({ success: true, output });
    expect(await registry.pending(runId)).toEqual([]);
  }

  it('an answer taken just before the stall is applied: the run completes with it', async () => {
    const { runId, asked } = await asking();
    await registry.answer(runId, asked.interruptId, 5);
    blockEventLoop(LEASE_TTL_MS * 3);
    await completedWith(runId, '5 days in Lisbon');
  });

  it('an answer posted during the stall (it waits in the socket) is taken: 204, and the run completes with it', async () => {
    const { runId, asked } = await asking();
    const server = await serve((request) => registry.handleAnswer(runId, request));
    const marker = join(directory, 'sent');
    try {
      const page = answerFromAnotherProcess(`${server.url}/answer`, JSON.stringify({ interruptId: asked.interruptId, answer: 6 }), marker);
      await page.ready;
      page.go();
      // The loop stays blocked until the other process has sent its answer (for a few seconds at most).
      const cap = Date.now() + 5_000;
      blockEventLoop(LEASE_TTL_MS * 3, () => existsSync(marker) || Date.now() > cap);
      expect(existsSync(marker)).toBe(true);
      expect(await page.status).toBe('HTTP/1.1 204 No Content');
      await completedWith(runId, '6 days in Lisbon');
    } finally {
      await server.close();
    }
  });

  it('an answer posted after the stall is taken: 204, and the run completes with it', async () => {
    const { runId, asked } = await asking();
    blockEventLoop(LEASE_TTL_MS * 3);
    await new Promise((resolve) => setTimeout(resolve, LEASE_TTL_MS));
    const response = await registry.handleAnswer(runId, post({ interruptId: asked.interruptId, answer: 7 }));
    expect(response.status).toBe(204);
    await completedWith(runId, '7 days in Lisbon');
  });
});
