// A process running the durable chain (see durableChain.ts) on a FileRunStore in DIRECTORY, as RUN_ID,
// counting calls in DIRECTORY too. It prints every event as one JSON line, then its outcome as one line
// (`{"outcome":"complete"}` or `{"outcome":"error","name":...,"code":...}`) and exits.
// Env: DIRECTORY, RUN_ID, LEASE_TTL_MS; HOLD (`<agentId>:<chunk>`: that agent stops before that chunk);
// GATE (a file the agents wait for); WAIT (`1`: print "ready" and start on the first line of stdin).
import { FileRunStore } from '../../src/file-store';
import { chainRun$ } from './durableChain';
import { runChainProcess } from './runChainProcess';

const directory = process.env['DIRECTORY'] ?? '';
const store = new FileRunStore({ directory, onTornRecord: () => undefined });
runChainProcess((runId, leaseTtlMs, settings) => chainRun$(store, runId, leaseTtlMs, { ...settings, countsDir: directory }));
