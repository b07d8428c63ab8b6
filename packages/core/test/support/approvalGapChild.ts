import type { RunStore } from '../../src';
import { pendingInterrupts$ } from '../../src';
import { approvalRun$, gateInterruptAppends } from './approvalRun';

const print = (line: object): void => {
  process.stdout.write(`${JSON.stringify(line)}\n`);
};

/**
 * The body of an approval child process: runs the approval run (see approvalRun.ts) on `store` as
 * RUN_ID, its append of the question waiting for the file GATE, and prints one JSON line per thing a
 * reader can see: `{"appending":"interrupt"}` when that append starts, `{"type":...,"interruptId":...}`
 * per event, `{"listed":[ids]}` per change of `pendingInterrupts$(RUN_ID)`.
 * Env: RUN_ID, LEASE_TTL_MS, GATE.
 */
export function runApprovalGapChild(store: RunStore): void {
  const runId = process.env['RUN_ID'] ?? '';
  const gated = gateInterruptAppends(store, process.env['GATE'] ?? '', () => print({ appending: 'interrupt' }));
  pendingInterrupts$(runId).subscribe((open) => print({ listed: open.map((event) => event.interruptId) }));
  approvalRun$(gated, runId, Number(process.env['LEASE_TTL_MS'] ?? '500')).subscribe({
    next: (event) => print({ type: event.type, ...(event.type === 'interrupt' ? { interruptId: event.interruptId } : {}) }),
    error: (error: { name?: string }) => print({ outcome: 'error', name: error.name }),
  });
}
