// The writer process of the durable bench's liveFollowers: writes a run's journal to a file store under
// its lease while viewers in the bench's process follow it. RECORDS records (run-start, text deltas,
// run-end) in appends of PER_APPEND, the next append started as the last one resolved (after a turn of
// the event loop). Prints "started" after its first append and "done" after its last.
import type { RunEvent } from '@rxagents/core';
import { FileRunStore } from '@rxagents/core/file-store';

const directory = process.env['DIRECTORY'] ?? '';
const runId = process.env['RUN_ID'] ?? 'live';
const records = Number(process.env['RECORDS'] ?? '20000');
const perAppend = Number(process.env['PER_APPEND'] ?? '10');
const store = new FileRunStore({ directory });

void (async () => {
  const lease = await store.acquireLease(runId, 600_000);
  for (let seq = 0; seq < records; ) {
    const events: RunEvent[] = [];
    for (let i = 0; i < perAppend && seq < records; i++, seq++) {
      if (seq === 0) events.push({ type: 'run-start', runId, callId: 'run', parentCallId: null, at: 0, name: 'live', input: 'go' });
      else if (seq === records - 1) events.push({ type: 'run-end', runId, callId: 'run', parentCallId: null, at: seq, success: true, durationMs: seq });
      else events.push({ type: 'text-delta', runId, callId: 'run/0', parentCallId: 'run', at: seq, agentId: 'writer', delta: `token ${seq} ` });
    }
    await store.append(runId, events, lease);
    if (seq === events.length) process.stdout.write('started\n');
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  await store.releaseLease(lease);
  process.stdout.write('done\n');
})();
