import type { Observable } from 'rxjs';
import type { RunEvent } from '../../src';
import type { ChainSettings } from './durableChain';

const print = (line: object): void => {
  process.stdout.write(`${JSON.stringify(line)}\n`);
};

/**
 * The body of a chain child process: reads RUN_ID, LEASE_TTL_MS, HOLD, GATE and WAIT from the
 * environment, runs `run$`, prints each event (type, agent, call id) and the outcome as JSON lines.
 */
export function runChainProcess(run$: (runId: string, leaseTtlMs: number, settings: Omit<ChainSettings, 'countsDir'>) => Observable<RunEvent>): void {
  const [agentId, chunk] = (process.env['HOLD'] ?? '').split(':');
  const hold = agentId !== undefined && agentId !== '' ? { agentId, chunk: Number(chunk) } : undefined;
  const start = (): void => {
    run$(process.env['RUN_ID'] ?? '', Number(process.env['LEASE_TTL_MS'] ?? '500'), { hold, gate: process.env['GATE'] }).subscribe({
      next: (event) => print({ type: event.type, callId: event.callId, ...('agentId' in event ? { agentId: event.agentId } : {}), ...(event.type === 'run-end' ? { success: event.success, error: event.error } : {}) }),
      error: (error: { name?: string; code?: string }) => {
        print({ outcome: 'error', name: error.name, code: error.code });
        process.exit(0);
      },
      complete: () => {
        print({ outcome: 'complete' });
        process.exit(0);
      },
    });
  };
  if (process.env['WAIT'] !== '1') return start();
  print({ ready: true });
  process.stdin.once('data', start);
}
