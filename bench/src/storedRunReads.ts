import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MemoryRunStore, type RunEvent, type RunStore } from '@rxagents/core';
import { FileRunStore } from '@rxagents/core/file-store';
import { createRunRegistry } from '@rxagents/web';
import type { BenchFigure } from './BenchSuite';

const here = dirname(fileURLToPath(import.meta.url));
const quiet = { heartbeatMs: Infinity, stallTimeoutMs: Infinity } as const;

/** Median ratio of two sides measured in alternating rounds (the durable suite's `ratioOf`). */
type RatioOf = (measured: (round: number) => Promise<number>, baseline: (round: number) => Promise<number>) => Promise<{ ratio: number; measured: number; baseline: number }>;

function seconds(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1e9;
}

/** Writes a finished run of `records` records (run-start, text deltas, run-end) in appends of 50. */
async function finishedRun(store: RunStore, runId: string, records: number): Promise<void> {
  for (let seq = 0; seq < records; ) {
    const events: RunEvent[] = [];
    for (let i = 0; i < 50 && seq < records; i++, seq++) {
      if (seq === 0) events.push({ type: 'run-start', runId, callId: 'run', parentCallId: null, at: 0, name: 'big', input: 'go' });
      else if (seq === records - 1) events.push({ type: 'run-end', runId, callId: 'run', parentCallId: null, at: seq, success: true, durationMs: seq });
      else events.push({ type: 'text-delta', runId, callId: 'run/0', parentCallId: 'run', at: seq, agentId: 'writer', delta: `token ${seq} ` });
    }
    await store.append(runId, events);
  }
}

/** Reads a body to its end; how many bytes it held. */
async function drain(body: ReadableStream<Uint8Array> | null): Promise<number> {
  let bytes = 0;
  for await (const chunk of body as ReadableStream<Uint8Array>) bytes += chunk.byteLength;
  return bytes;
}

/** Seconds for a fresh registry on `store` to serve the whole run to one viewer. */
async function serve(store: RunStore, runId: string): Promise<number> {
  const registry = createRunRegistry({ store, ...quiet });
  const start = process.hrtime.bigint();
  await drain((await registry.response(runId, new Request('http://bench/runs'))).body);
  const time = seconds(start);
  registry.close();
  return time;
}

/** Starts the writer process of a live run (journalWriter.ts); resolves once it made its first append. */
function startWriter(directory: string, runId: string, records: number): Promise<{ done: Promise<void> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(here, 'journalWriter.ts')], {
    env: { ...process.env, DIRECTORY: directory, RUN_ID: runId, RECORDS: String(records), PER_APPEND: '10' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  let started = (): void => undefined;
  let done = (): void => undefined;
  const finished = new Promise<void>((resolve) => (done = resolve));
  child.stdout.on('data', (data: Buffer) => {
    output += data.toString();
    if (output.includes('started\n')) started();
    if (output.includes('done\n')) done();
  });
  return new Promise((resolve, reject) => {
    started = () => resolve({ done: finished });
    child.on('exit', (code) => (code === 0 ? done() : reject(new Error(`the journal writer exited with ${code}`))));
  });
}

/** Seconds from the writer's first append until each of `viewers` viewers of one registry got the run's last record. */
async function follow(directory: string, runId: string, records: number, viewers: number): Promise<number> {
  const writer = await startWriter(directory, runId, records);
  const start = process.hrtime.bigint();
  const registry = createRunRegistry({ store: new FileRunStore({ directory }), pollMs: 20, ...quiet });
  const bodies = await Promise.all(Array.from({ length: viewers }, async () => (await registry.response(runId, new Request('http://bench/runs'))).body));
  const sizes = await Promise.all(bodies.map(drain));
  const time = seconds(start);
  registry.close();
  await writer.done;
  if (new Set(sizes).size !== 1) throw new Error(`the viewers were shown different runs: ${[...new Set(sizes)].join(', ')} bytes`);
  return time;
}

/** `storedViewerOverMemory` and `liveFollowers`, measured in `dir`. */
export async function storedRunReads(dir: string, ratioOf: RatioOf, log: (line: string) => void): Promise<Record<string, BenchFigure>> {
  const figures: Record<string, BenchFigure> = {};
  const records = 100_000;
  const file = new FileRunStore({ directory: join(dir, 'stored') });
  const memory = new MemoryRunStore();
  await finishedRun(file, 'big', records);
  await finishedRun(memory, 'big', records);
  const stored = await ratioOf(
    () => serve(file, 'big'),
    () => serve(memory, 'big'),
  );
  log(`storedViewerOverMemory: a finished ${records.toLocaleString('en')}-event run to one viewer, file store ${stored.measured.toFixed(3)} s / memory store ${stored.baseline.toFixed(3)} s`);
  figures.storedViewerOverMemory = { value: stored.ratio, label: 'time to serve a finished 100,000-event run to a viewer of a registry on the file store over on the memory store', bar: { op: '<=', limit: 3 } };

  const live = 20_000;
  let run = 0;
  const followers = await ratioOf(
    () => follow(join(dir, `live-${run}`), `live-${run++}`, live, 50),
    () => follow(join(dir, `live-${run}`), `live-${run++}`, live, 1),
  );
  log(`liveFollowers: a ${live.toLocaleString('en')}-event run written by another process, 50 viewers ${followers.measured.toFixed(3)} s / one viewer ${followers.baseline.toFixed(3)} s to its last record`);
  figures.liveFollowers = { value: followers.ratio, label: 'time for 50 viewers of a live run written by another process to reach its last record over for one viewer', bar: { op: '<=', limit: 2 } };
  return figures;
}
