import { stream } from '@rxagents/core';
import { remoteAgent } from '@rxagents/redis';
import { startGatedProxy } from '../../../packages/redis/test/support/gatedProxy';
import { sleep } from '../memory';
import { runningKey, startSoakRedis, startWorker, stopProcess } from '../soakRedis';
import type { SoakScenario } from '../SoakScenario';

/** How long a call may take to send its first chunk, in ms. */
const START_CAP_MS = 15_000;

/** How a watched call ended, if it did. */
type Outcome = { readonly kind: 'error'; readonly error: unknown; readonly at: number } | { readonly kind: 'complete'; readonly at: number };

/** What one stall did to the caller: how long after it could go on it had its answer, and which. */
interface StallFigure {
  readonly how: string;
  /** Milliseconds from the end of the stall to the call's end; undefined when it had not ended after `watchMs`. */
  readonly endedAfterMs: number | undefined;
  readonly ending: string;
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const { code, retryable } = error as { code?: unknown; retryable?: unknown };
  const details = [typeof code === 'string' ? code : undefined, retryable === true ? 'retryable' : retryable === false ? 'not retryable' : undefined].filter((detail) => detail !== undefined);
  const own = `${error.name}${details.length > 0 ? ` (${details.join(', ')})` : ''}`;
  // An agent's failure reaches its caller wrapped in an AgentError: what ended the call is its cause.
  return error.cause === undefined ? own : `${own} caused by ${describe(error.cause)}`;
}

/**
 * A remote call whose caller stops renewing its lease for longer than `leaseMs` (its event loop blocked;
 * then, on a second call, its connection to Redis cut): the worker stops the call, and the caller must
 * learn it soon after it can run again, not wait forever.
 */
export const callerStall: SoakScenario = {
  name: 'caller-stall',
  needsRedis: true,
  async run(size, log) {
    const { leaseMs, blockMs, watchMs, slackMs } = size.callerStall;
    const redis = await startSoakRedis();
    if ('skipped' in redis) return { figures: `skipped: ${redis.skipped}`, bound: 'none checked', within: 'skipped' };
    const prefix = 'soak-stall';
    const agentId = 'staller';
    const worker = await startWorker({ port: redis.port, prefix, agentId, concurrency: 2, claimIdleMs: 2_000, leaseCheckMs: 100, callMs: 600_000, chunkMs: 100 });
    const proxy = await startGatedProxy(redis.port);
    const figures: StallFigure[] = [];
    try {
      const stall = async (how: string, port: number, stop: () => Promise<void>): Promise<void> => {
        const client = redis.client({ port });
        client.on('error', () => undefined);
        const agent = remoteAgent(client, agentId, { prefix, leaseMs, delivery: 'live' });
        let outcome: Outcome | undefined;
        let started!: () => void;
        const running = new Promise<void>((resolve) => (started = resolve));
        const subscription = stream(agent, how).subscribe({
          next: () => started(),
          error: (error: unknown) => (outcome = { kind: 'error', error, at: Date.now() }),
          complete: () => (outcome = { kind: 'complete', at: Date.now() }),
        });
        const startedInTime = await Promise.race([running.then(() => true), sleep(START_CAP_MS).then(() => false)]);
        if (!startedInTime) {
          subscription.unsubscribe();
          log(`${how}: the call had not started after ${START_CAP_MS / 1000} s`);
          figures.push({ how, endedAfterMs: undefined, ending: `never started within ${START_CAP_MS / 1000} s` });
          return;
        }
        await stop();
        const resumed = Date.now();
        while (outcome === undefined && Date.now() - resumed < watchMs) await sleep(20);
        subscription.unsubscribe();
        const onWorker = await redis.client().hexists(runningKey(prefix), how);
        const endedAfterMs = outcome === undefined ? undefined : Math.max(0, outcome.at - resumed);
        const ending = outcome === undefined ? `still waiting after ${watchMs / 1000} s` : outcome.kind === 'complete' ? 'completed (unexpected)' : describe(outcome.error);
        log(`${how}: ${endedAfterMs === undefined ? ending : `${ending} ${endedAfterMs} ms after the caller could run again`}; the worker ${onWorker === 1 ? 'still runs the agent' : 'stopped the agent'}`);
        figures.push({ how, endedAfterMs, ending });
      };
      log(`leaseMs ${leaseMs}; the worker's leaseCheckMs 100; each stall lasts ${blockMs} ms`);
      await stall('event loop blocked', redis.port, async () => {
        const until = Date.now() + blockMs;
        while (Date.now() < until) {
          // the caller's only thread is busy: no renewal, no read
        }
      });
      await stall('connection cut', proxy.port, async () => {
        proxy.shut();
        await sleep(blockMs);
        proxy.open();
      });
    } finally {
      await stopProcess(worker);
      await proxy.close();
      await redis.stop();
    }
    const boundMs = 2 * leaseMs + slackMs;
    const within = figures.every((figure) => figure.endedAfterMs !== undefined && figure.endedAfterMs <= boundMs && !figure.ending.startsWith('completed'));
    return {
      figures: figures.map((figure) => `${figure.how}: ${figure.endedAfterMs === undefined ? figure.ending : `${figure.ending} after ${figure.endedAfterMs} ms`}`).join('; '),
      bound: `an error within ${boundMs} ms of resuming (2 × leaseMs ${leaseMs} + ${slackMs} ms), for a stall of ${blockMs} ms`,
      within,
    };
  },
};
