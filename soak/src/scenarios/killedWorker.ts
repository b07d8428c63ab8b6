import type { ChildProcess } from 'node:child_process';
import { invoke } from '@rxagents/core';
import { remoteAgent } from '@rxagents/redis';
import { sleep } from '../memory';
import { runningKey, startSoakRedis, startWorker, stopProcess } from '../soakRedis';
import type { SoakScenario } from '../SoakScenario';

/** A call's reply starts with "<pid> <start time> " of the attempt that answered it (see workers/agentWorker.ts). */
const attemptOf = (reply: string): { pid: number; startedAt: number } | undefined => {
  const match = /^(\d+) (\d+) /.exec(reply);
  return match === null ? undefined : { pid: Number(match[1]), startedAt: Number(match[2]) };
};

/**
 * Worker processes kept busy by a steady stream of new calls; one is killed (SIGKILL) mid-call. Its
 * calls (orphans) must be claimed and started again by another worker within about `claimIdleMs`,
 * however busy the others are, not after the load is over.
 */
export const killedWorker: SoakScenario = {
  name: 'killed-worker',
  needsRedis: true,
  async run(size, log) {
    const { workers: workerCount, concurrency, claimIdleMs, callMs, inFlight, loadAfterKillMs, slackMs } = size.killedWorker;
    const redis = await startSoakRedis();
    if ('skipped' in redis) return { figures: `skipped: ${redis.skipped}`, bound: 'none checked', within: 'skipped' };
    const prefix = 'soak-kill';
    const agentId = 'worker';
    const settings = { port: redis.port, prefix, agentId, concurrency, claimIdleMs, leaseCheckMs: Math.floor(claimIdleMs / 4), callMs, chunkMs: 50 };
    const workers: ChildProcess[] = [];
    const boundMs = 3 * claimIdleMs + slackMs;
    try {
      workers.push(...(await Promise.all(Array.from({ length: workerCount }, () => startWorker(settings)))));
      const caller = redis.client();
      const agent = remoteAgent(caller, agentId, { prefix });
      log(`${workerCount} workers × concurrency ${concurrency}, claimIdleMs ${claimIdleMs}, leaseCheckMs ${settings.leaseCheckMs}; calls of ${callMs} ms, ${inFlight} in flight; new calls for ${loadAfterKillMs / 1000} s after the kill`);

      const done = new Map<string, { reply: string; at: number } | { error: unknown; at: number }>();
      let issued = 0;
      let loading = true;
      const inFlightCalls = new Set<Promise<void>>();
      const call = (): void => {
        const input = `call-${issued++}`;
        const settled = invoke(agent, input)
          .then((reply) => void done.set(input, { reply, at: Date.now() }))
          .catch((error: unknown) => void done.set(input, { error, at: Date.now() }))
          .finally(() => {
            inFlightCalls.delete(settled);
            if (loading) call();
          });
        inFlightCalls.add(settled);
      };
      for (let i = 0; i < inFlight; i++) call();
      // Every worker has calls running before one is killed.
      const running = redis.client();
      const victimPid = workers[0]!.pid!;
      const startedBy = async (pid: number): Promise<string[]> =>
        Object.entries(await running.hgetall(runningKey(prefix)))
          .filter(([, value]) => Number(value) === pid)
          .map(([input]) => input);
      const warmUntil = Date.now() + 15_000;
      while (done.size < workerCount * concurrency && Date.now() < warmUntil) await sleep(20);
      let orphans: string[] = [];
      while (orphans.length === 0 && Date.now() < warmUntil) {
        orphans = await startedBy(victimPid);
        if (orphans.length === 0) await sleep(10);
      }
      await stopProcess(workers[0]!, 'SIGKILL');
      const killedAt = Date.now();
      const servedBeforeKill = done.size;
      log(`killed worker ${victimPid} with ${orphans.length} calls running on it (${orphans.join(', ')}), after ${servedBeforeKill} calls were served`);

      await sleep(loadAfterKillMs);
      loading = false;
      const loadEnded = Date.now();
      const servedUnderLoad = done.size - servedBeforeKill;
      // Whatever is still in flight (orphans too) may finish once the load is over; not for ever.
      const drainUntil = Date.now() + boundMs + 5_000;
      while (inFlightCalls.size > 0 && Date.now() < drainUntil) await sleep(20);

      // A call that ended on the killed worker in the moment between the look at its running calls and the kill was no orphan.
      const endedBeforeKill = orphans.filter((input) => {
        const outcome = done.get(input);
        return outcome !== undefined && 'reply' in outcome && attemptOf(outcome.reply)?.pid === victimPid;
      });
      if (endedBeforeKill.length > 0) log(`${endedBeforeKill.join(', ')} ended on the killed worker before the kill: not counted`);
      orphans = orphans.filter((input) => !endedBeforeKill.includes(input));
      const waits = orphans.map((input) => {
        const outcome = done.get(input);
        if (outcome === undefined) return { input, waitedMs: undefined as number | undefined, note: 'never answered' };
        if ('error' in outcome) return { input, waitedMs: outcome.at - killedAt, note: `failed: ${outcome.error instanceof Error ? outcome.error.name : String(outcome.error)}` };
        const attempt = attemptOf(outcome.reply);
        if (attempt === undefined) return { input, waitedMs: outcome.at - killedAt, note: 'reply without an attempt stamp' };
        return { input, waitedMs: attempt.startedAt - killedAt, note: attempt.startedAt >= loadEnded ? 'started again only after the load ended' : `started again on ${attempt.pid}` };
      });
      for (const wait of waits) log(`${wait.input}: ${wait.waitedMs === undefined ? 'never answered' : `waited ${wait.waitedMs} ms`} (${wait.note})`);
      const lastRestart = Math.max(...waits.map((wait) => (wait.waitedMs === undefined ? Infinity : killedAt + wait.waitedMs)));
      const servedWhileOrphansWaited = [...done.values()].filter((outcome) => outcome.at > killedAt && outcome.at < lastRestart).length;
      const failed = [...done.values()].filter((outcome) => 'error' in outcome).length;
      const maxWait = Math.max(...waits.map((wait) => wait.waitedMs ?? Infinity));
      const answered = waits.filter((wait) => wait.waitedMs !== undefined).length;
      return {
        figures:
          `${orphans.length} orphaned calls waited ${waits.map((wait) => (wait.waitedMs === undefined ? 'never' : `${wait.waitedMs} ms`)).join(', ')} (max ${Number.isFinite(maxWait) ? `${maxWait} ms` : 'never'}, claimIdleMs ${claimIdleMs}); ` +
          `${servedUnderLoad} calls served in the ${loadAfterKillMs / 1000} s after the kill, ${servedWhileOrphansWaited} calls finished between the kill and the last orphan's new start; ${answered}/${orphans.length} orphans answered, ${failed} calls failed`,
        bound: `every orphan started again within ${boundMs} ms of the kill (3 × claimIdleMs ${claimIdleMs} + ${slackMs} ms), none failed`,
        within: orphans.length > 0 && maxWait <= boundMs && failed === 0,
      };
    } finally {
      for (const worker of workers) await stopProcess(worker);
      await redis.stop();
    }
  },
};
