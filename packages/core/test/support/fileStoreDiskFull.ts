// Run under a file size limit (`ulimit -f`): appends a small journal to DIRECTORY, then an append too big
// for the limit, and prints how that append failed as one JSON line.
import type { RunEvent } from '../../src';
import { FileRunStore } from '../../src/file-store';

const directory = process.env['DIRECTORY'] ?? '';
const store = new FileRunStore({ directory });
const delta = (text: string): RunEvent => ({ type: 'text-delta', runId: 'full', callId: 'run/0', parentCallId: 'run', at: 1, agentId: 'writer', delta: text });

void (async () => {
  await store.append('full', [{ type: 'run-start', runId: 'full', callId: 'run', parentCallId: null, at: 0, name: 'story', input: 'go' }, delta('Once ')]);
  await store.append('full', [delta('upon ')]);
  try {
    await store.append('full', Array.from({ length: 60 }, () => delta('x'.repeat(60_000))));
    process.stdout.write(`${JSON.stringify({ failed: false })}\n`);
  } catch (error) {
    const failure = error as { name?: string; code?: string; retryable?: boolean; cause?: { code?: string } };
    process.stdout.write(`${JSON.stringify({ failed: true, name: failure.name, code: failure.code, retryable: failure.retryable, cause: failure.cause?.code })}\n`);
  }
})();
