import { createServer } from 'node:http';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { filter, firstValueFrom, map } from 'rxjs';
import { pendingInterrupts$, type RunEventOf, type RunStore } from '@rxagents/core';
import { FileRunStore } from '@rxagents/core/file-store';
import { createRunRegistry, toWebRequest, writeToNodeResponse, type DurableRunRegistry } from '@rxagents/web';
import { answersFromAnotherProcess, blockEventLoop, callsIn, journal, rootEnd, tripRuns } from '../../../packages/web/test/helpers/stall';
import { sleep } from '../memory';
import type { SoakScenario } from '../SoakScenario';

/** When the person's answer comes, against the stall. */
type Timing = 'before' | 'during' | 'after';
const TIMINGS: readonly Timing[] = ['before', 'during', 'after'];

/** One run's fate: whether its answer was taken (204) and it completed with it, and whether the stall stopped it (its agent called again). */
interface Outcome {
  readonly timing: Timing;
  readonly taken: boolean;
  readonly completed: boolean;
  readonly resumed: boolean;
}

/** `POST /runs/<runId>/answer` served by the registry's answer route through the package's Node adapter. */
async function serveAnswers(registry: DurableRunRegistry): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createServer((req, res) => {
    void (async () => {
      const runId = /^\/runs\/([^/?]+)\/answer$/.exec(req.url ?? '')?.[1];
      if (runId === undefined) {
        res.writeHead(404).end();
        return;
      }
      await writeToNodeResponse(await registry.handleAnswer(runId, toWebRequest(req, res)), res);
    })().catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** The question the run asks, once its journal holds it too. */
async function questionOf(store: RunStore, runId: string): Promise<RunEventOf<'interrupt'>> {
  const asked = await firstValueFrom(
    pendingInterrupts$(runId).pipe(
      filter((open) => open.length > 0),
      map((open) => open[0] as RunEventOf<'interrupt'>),
    ),
  );
  while (!(await journal(store, runId)).some((event) => event.type === 'interrupt')) await sleep(5);
  return asked;
}

/** Whether every record of the run's journal reads back, through a store that did not write it. */
async function readable(store: RunStore, runId: string): Promise<boolean> {
  try {
    await journal(store, runId);
    return true;
  } catch {
    return false;
  }
}

/**
 * Runs of a durable registry on a file store, each waiting for a person's answer, while the registry's
 * event loop is blocked for three leases: the answer comes just before the stall, during it (from
 * another process, waiting in the sockets) or after it. Each run must be taken and completed with its
 * answer, and every journal must read back.
 */
export const registryStall: SoakScenario = {
  name: 'registry-stall',
  needsRedis: false,
  async run(size, log) {
    const { runsPerTiming, leaseTtlMs, watchMs } = size.registryStall;
    const directory = await mkdtemp(join(tmpdir(), 'rxagents-soak-registry-stall-'));
    const store = new FileRunStore({ directory });
    const registry = createRunRegistry({ store, runs: tripRuns().runs, leaseTtlMs, heartbeatMs: Infinity, stallTimeoutMs: Infinity });
    const server = await serveAnswers(registry);
    const outcomes: Outcome[] = [];
    const runIds: string[] = [];
    log(`FileRunStore, leaseTtlMs ${leaseTtlMs}; ${runsPerTiming} runs waiting for an answer per round; each stall blocks the event loop for ${3 * leaseTtlMs} ms`);
    try {
      for (const timing of TIMINGS) {
        const runs = Array.from({ length: runsPerTiming }, (_, i) => ({ ...registry.start('trip', `${timing} ${i}`), days: i + 2 }));
        const asked = await Promise.all(runs.map(({ runId }) => questionOf(store, runId)));
        const bodies = runs.map(({ days }, i) => JSON.stringify({ interruptId: (asked[i] as RunEventOf<'interrupt'>).interruptId, answer: days }));
        const post = (i: number): Promise<number> =>
          fetch(`${server.url}/runs/${(runs[i] as { runId: string }).runId}/answer`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: bodies[i] as string }).then((response) => response.status);
        let statuses: number[];
        if (timing === 'before') {
          statuses = await Promise.all(runs.map((_, i) => post(i)));
          blockEventLoop(3 * leaseTtlMs);
        } else if (timing === 'during') {
          const marker = join(directory, 'sent');
          const page = answersFromAnotherProcess(server.url, runs.map(({ runId }, i) => ({ path: `/runs/${runId}/answer`, body: bodies[i] as string })), marker);
          await page.ready;
          page.go();
          const cap = Date.now() + 10_000;
          blockEventLoop(3 * leaseTtlMs, () => existsSync(marker) || Date.now() > cap);
          statuses = (await page.statuses).map((line) => Number(line.split(' ')[1]));
        } else {
          blockEventLoop(3 * leaseTtlMs);
          statuses = await Promise.all(runs.map((_, i) => post(i)));
        }
        const until = Date.now() + watchMs;
        const running = async (): Promise<boolean> => (await Promise.all(runs.map(async ({ runId }) => (await store.summary(runId))?.status === 'running'))).some(Boolean);
        while ((await running()) && Date.now() < until) await sleep(20);
        const round: Outcome[] = [];
        for (const [i, { runId, days }] of runs.entries()) {
          runIds.push(runId);
          const end = await rootEnd(store, runId);
          const completed = end?.type === 'run-end' && end.success && end.output === `${days} days in ${timing} ${i}`;
          round.push({ timing, taken: statuses[i] === 204, completed, resumed: (await callsIn(store, runId, 'planner')) > 1 });
        }
        outcomes.push(...round);
        const statusList = [...new Set(statuses)].join(', ');
        log(`answers ${timing} the stall: ${round.filter((o) => o.taken && o.completed).length}/${round.length} taken and completed with them (statuses ${statusList}); ${round.filter((o) => o.resumed).length} stopped by the stall and resumed`);
      }
    } finally {
      registry.close();
      await server.close();
    }
    const reader = new FileRunStore({ directory });
    const readableCount = (await Promise.all(runIds.map((runId) => readable(reader, runId)))).filter(Boolean).length;
    await rm(directory, { recursive: true, force: true });
    const ok = (timing?: Timing): string => {
      const some = outcomes.filter((o) => timing === undefined || o.timing === timing);
      return `${some.filter((o) => o.taken && o.completed).length}/${some.length}`;
    };
    const allOk = outcomes.every((o) => o.taken && o.completed);
    return {
      figures: `answered and completed ${ok()} (before ${ok('before')}, during ${ok('during')}, after ${ok('after')}); ${outcomes.filter((o) => o.resumed).length} stopped by the stall and resumed; journals readable ${readableCount}/${runIds.length}`,
      bound: `every answer taken (204) and every run completed with its answer; every journal readable`,
      within: allOk && readableCount === runIds.length && runIds.length === outcomes.length,
    };
  },
};
