// A process that writes a run's journal while another process reads it: RECORDS records (the root's
// run-start, text deltas, the root's run-end) in appends of PER_APPEND, one append a millisecond, under a
// lease it holds throughout. Prints "started" after its first append and "done" after its last. With
// PAUSE_AT and PAUSE_FILE, it prints "paused" once it wrote PAUSE_AT records and waits for that file to exist.
import { existsSync } from 'node:fs';
import type { RunEvent } from '../../src';
import { FileRunStore } from '../../src/file-store';

const directory = process.env['DIRECTORY'] ?? '';
const runId = process.env['RUN_ID'] ?? 'live';
const records = Number(process.env['RECORDS'] ?? '1000');
const perAppend = Number(process.env['PER_APPEND'] ?? '5');
const pauseAt = Number(process.env['PAUSE_AT'] ?? 'NaN');
const pauseFile = process.env['PAUSE_FILE'] ?? '';
const store = new FileRunStore({ directory });

void (async () => {
  const lease = await store.acquireLease(runId, 600_000);
  let seq = 0;
  while (seq < records) {
    const events: RunEvent[] = [];
    for (let i = 0; i < perAppend && seq < records; i++, seq++) {
      if (seq === 0) events.push({ type: 'run-start', runId, callId: 'run', parentCallId: null, at: 0, name: 'live', input: 'go' });
      else if (seq === records - 1) events.push({ type: 'run-end', runId, callId: 'run', parentCallId: null, at: seq, success: true, durationMs: seq });
      else events.push({ type: 'text-delta', runId, callId: 'run/0', parentCallId: 'run', at: seq, agentId: 'writer', delta: `delta ${seq} ` });
    }
    await store.append(runId, events, lease);
    if (seq === events.length) process.stdout.write('started\n');
    if (seq === pauseAt) {
      process.stdout.write('paused\n');
      while (!existsSync(pauseFile)) await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  await store.releaseLease(lease);
  process.stdout.write('done\n');
})();
