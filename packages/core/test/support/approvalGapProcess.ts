// A process running the approval run (see approvalRun.ts) on a FileRunStore in DIRECTORY, as RUN_ID,
// whose append of the question waits for the file GATE. It prints one JSON line per thing a reader can
// see: `{"appending":"interrupt"}` when that append starts, `{"type":...,"interruptId":...}` per event,
// `{"listed":[ids]}` per change of `pendingInterrupts$(RUN_ID)`.
// Env: DIRECTORY, RUN_ID, LEASE_TTL_MS, GATE.
import { FileRunStore } from '../../src/file-store';
import { pendingInterrupts$ } from '../../src';
import { approvalRun$, gateInterruptAppends } from './approvalRun';

const print = (line: object): void => {
  process.stdout.write(`${JSON.stringify(line)}\n`);
};
const runId = process.env['RUN_ID'] ?? '';
const store = gateInterruptAppends(new FileRunStore({ directory: process.env['DIRECTORY'] ?? '', onTornRecord: () => undefined }), process.env['GATE'] ?? '', () => print({ appending: 'interrupt' }));
pendingInterrupts$(runId).subscribe((open) => print({ listed: open.map((event) => event.interruptId) }));
approvalRun$(store, runId, Number(process.env['LEASE_TTL_MS'] ?? '500')).subscribe({
  next: (event) => print({ type: event.type, ...(event.type === 'interrupt' ? { interruptId: event.interruptId } : {}) }),
  error: (error: { name?: string }) => print({ outcome: 'error', name: error.name }),
});
