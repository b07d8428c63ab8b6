// A process that races another for the leases of RUNS runs in DIRECTORY: it prints "ready", waits for a
// line on stdin, then tries to take each lease once and prints what it got, as one JSON line. It lives on
// until its stdin ends: a lease whose holder exited is free at once, so a racer that finished first must
// not exit while the other still races.
import { FileRunStore } from '../../src/file-store';

const directory = process.env['DIRECTORY'] ?? '';
const runs = Number(process.env['RUNS'] ?? '1');
const store = new FileRunStore({ directory });

process.stdout.write('ready\n');
process.stdin.once('data', () => {
  void (async () => {
    const results: string[] = [];
    for (let index = 0; index < runs; index++) {
      try {
        await store.acquireLease(`race-${index}`, 60_000);
        results.push('leased');
      } catch (error) {
        results.push(String((error as { code?: unknown }).code ?? error));
      }
    }
    process.stdout.write(`${JSON.stringify(results)}\n`);
    process.stdin.once('end', () => process.exit(0));
    process.stdin.resume();
  })();
});
