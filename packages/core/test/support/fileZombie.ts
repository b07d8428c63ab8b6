// A process that takes RUN's lease in DIRECTORY (for TTL_MS, never renewed) and appends text deltas under
// it in a loop until an append is refused. It prints "leased <epoch>" once it holds the lease, and at its
// end one JSON line: the texts whose appends resolved, the one in flight when it stopped, and the code of
// the refusal. With STOP_BEFORE_WRITE=1, a line on stdin makes it stop itself (SIGSTOP) just before the
// next write reaches the file, after every check: the worst moment for a process to be paused.
import { open } from 'node:fs/promises';
import type { RunEvent } from '../../src';
import { FileRunStore } from '../../src/file-store';

const directory = process.env['DIRECTORY'] ?? '';
const runId = process.env['RUN'] ?? 'takeover';
const ttlMs = Number(process.env['TTL_MS'] ?? '1500');
const store = new FileRunStore({ directory, onTornRecord: () => undefined, onStaleRecord: () => undefined });
const delta = (text: string): RunEvent => ({ type: 'text-delta', runId, callId: 'run/0', parentCallId: 'run', at: 1, agentId: 'zombie', delta: text });

void (async () => {
  let stopNext = false;
  if (process.env['STOP_BEFORE_WRITE'] === '1') {
    const probe = await open(process.execPath, 'r');
    const prototype = Object.getPrototypeOf(probe) as { write: (...args: unknown[]) => unknown };
    await probe.close();
    const write = prototype.write;
    prototype.write = function (this: unknown, ...args: unknown[]) {
      if (stopNext) {
        stopNext = false;
        process.kill(process.pid, 'SIGSTOP');
      }
      return write.apply(this, args);
    };
    process.stdin.once('data', () => (stopNext = true));
  }
  const lease = await store.acquireLease(runId, ttlMs);
  if ((await store.summary(runId)) === undefined) await store.append(runId, [{ type: 'run-start', runId, callId: 'run', parentCallId: null, at: 0, name: 'story', input: 'go' }], lease);
  process.stdout.write(`leased ${lease.epoch}\n`);
  const appended: string[] = [];
  let inFlight = '';
  let ending = 'none';
  for (let index = 0; ; index++) {
    inFlight = `zombie-${index} `;
    try {
      await store.append(runId, [delta(inFlight), delta(inFlight)], lease);
      appended.push(inFlight);
    } catch (error) {
      ending = String((error as { code?: unknown }).code ?? error);
      break;
    }
  }
  process.stdout.write(`${JSON.stringify({ appended, inFlight, ending })}\n`);
  process.exit(0);
})();
