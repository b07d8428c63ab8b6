// The durable run the multi-process tests kill and resume: a chain of six agents, each streaming three
// chunks with small real delays, each counting its calls by appending a line to a file (so the counts
// survive a SIGKILL). The killed child and the resuming process both run this same code.
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { concatMap, defer, lastValueFrom, NEVER, type Observable, of, timer, toArray, concat, map } from 'rxjs';
import { type Agent, defineAgent, invoke$, observeRun, RunLeasedError, type RunEvent, type RunStore } from '../../src';

/** The agents of the chain, in the order it calls them. */
export const CHAIN = ['a1', 'a2', 'a3', 'a4', 'a5', 'a6'] as const;

/** The root run's name and input. */
export const CHAIN_NAME = 'chain';
export const CHAIN_TOPIC = 'whales';

/** What every run of the chain answers: `a6(a5(...a1(whales)...))`. */
export const CHAIN_OUTPUT = CHAIN.reduce<string>((text, id) => `${id}(${text})`, CHAIN_TOPIC);

/** Where a chain agent stops for ever: before its chunk `chunk` (0 to 2), so a test can kill its process there. */
export interface Hold {
  readonly agentId: string;
  readonly chunk: number;
}

/** How the chain's agents behave. */
export interface ChainSettings {
  /** The directory holding `calls-<agentId>.txt`, one line per call that reached the agent. */
  readonly countsDir: string;
  readonly hold?: Hold | undefined;
  /** A file every agent waits for (polled) before its first chunk, while it does not exist. */
  readonly gate?: string | undefined;
  /** The one agent that waits for `gate`; without it every agent does. */
  readonly gatedAgent?: string | undefined;
  /** A changed program: this agent is asked its input with ` (v2)` after it. */
  readonly changedInput?: string | undefined;
  /** Milliseconds between chunks. */
  readonly gapMs?: number;
}

const CHUNK_GAP_MS = 15;

/** `id(input)` in three chunks, `gapMs` apart, counting the call first. */
function chainAgent(id: string, { countsDir, hold, gate, gatedAgent, gapMs = CHUNK_GAP_MS }: ChainSettings): Agent {
  return defineAgent(id, (input) => {
    appendFileSync(join(countsDir, `calls-${id}.txt`), `${process.pid}\n`);
    const chunks = [`${id}(`, input, ')'].map((chunk, index) =>
      index === hold?.chunk && id === hold.agentId ? NEVER : timer(gapMs).pipe(map(() => chunk)),
    );
    const gated = gate !== undefined && (gatedAgent === undefined || gatedAgent === id);
    return concat(gated ? waitForFile(gate) : of(), ...chunks);
  });
}

function waitForFile(path: string): Observable<never> {
  return defer(() => (existsSync(path) ? of() : timer(10).pipe(concatMap(() => waitForFile(path)))));
}

/** The chain's events: the run journaled to `store` as `runId`. */
export function chainRun$(store: RunStore, runId: string, leaseTtlMs: number, settings: ChainSettings): Observable<RunEvent> {
  const agents = CHAIN.map((id) => chainAgent(id, settings));
  const ask = (agent: Agent, text: string): string => (agent.id === settings.changedInput ? `${text} (v2)` : text);
  return observeRun(CHAIN_NAME, CHAIN_TOPIC, (run) => agents.reduce<Observable<string>>((text$, agent) => text$.pipe(concatMap((text) => invoke$(agent, ask(agent, text), { run }))), of(CHAIN_TOPIC)), {
    store,
    runId,
    leaseTtlMs,
  });
}

/**
 * Resumes the chain here, trying again while the run's lease is held (a killed process's lease lapses
 * after its `leaseTtlMs`), for at most `limitMs`.
 */
export async function resumeChain(store: RunStore, runId: string, leaseTtlMs: number, settings: ChainSettings, limitMs = 20_000): Promise<RunEvent[]> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    try {
      return await lastValueFrom(chainRun$(store, runId, leaseTtlMs, settings).pipe(toArray()));
    } catch (error) {
      if (!(error instanceof RunLeasedError) || Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

/** How many calls reached each agent of the chain, from the count files. */
export function callCounts(countsDir: string): Map<string, number> {
  return new Map(
    CHAIN.map((id) => {
      const file = join(countsDir, `calls-${id}.txt`);
      return [id, existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter((line) => line !== '').length : 0];
    }),
  );
}

/** The events of a run store's journal of `runId`. */
export async function journalEvents(store: RunStore, runId: string): Promise<RunEvent[]> {
  const events: RunEvent[] = [];
  for await (const record of store.read(runId)) events.push(record.event);
  return events;
}

/** The chain agents whose call ended in `journal` (a `call-end` of the agent). */
export function endedIn(journal: readonly RunEvent[]): Set<string> {
  return new Set(journal.flatMap((event) => (event.type === 'call-end' ? [event.agentId] : [])));
}

/**
 * What each agent's call count must be after a resume, given the journal the killed process left and the
 * counts it left: unchanged for a call whose end the journal holds (answered from the journal), one more
 * for every other call (it runs live once on the resume).
 */
export function expectedCounts(journal: readonly RunEvent[], before: ReadonlyMap<string, number>): Map<string, number> {
  const ended = endedIn(journal);
  return new Map(CHAIN.map((id) => [id, (before.get(id) ?? 0) + (ended.has(id) ? 0 : 1)]));
}
