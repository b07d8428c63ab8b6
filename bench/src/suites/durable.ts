import { createReadStream, mkdtempSync, rmSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Annotation, END, MemorySaver, START, StateGraph } from '@langchain/langgraph';
import { defineAgent, invoke$, MemoryRunStore, observeRun, type Agent, type RunContext, type RunStore } from '@rxagents/core';
import { FileRunStore } from '@rxagents/core/file-store';
import { RedisRunStore } from '@rxagents/redis';
import { Redis } from 'ioredis';
import { EMPTY, expand, last, lastValueFrom, map, type Observable } from 'rxjs';
import { findRedisServer, startRedisServer } from '../../../packages/redis/test/support/redisServer';
import type { BenchFigure, BenchSuite } from '../BenchSuite';
import { median } from '../median';
import { storedRunReads } from '../storedRunReads';

const CHAIN_STEPS = 1_000;
/** Each call journals three records (call-start, one text-delta, call-end); the root adds two. */
const RECORDS_PER_CALL = 3;
const ROUNDS = 5;

function seconds(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1e9;
}

/** An agent that answers after `delayMs` of real time (0: an already-resolved Promise). */
function agent(id: string, delayMs: number): Agent {
  return delayMs === 0 ? defineAgent(id, async () => 'x') : defineAgent(id, () => new Promise<string>((resolve) => setTimeout(() => resolve('x'), delayMs)));
}

/**
 * A chain of `steps` calls, each made when the previous one answered, as one run's body. (`expand` makes
 * each next call from the last answer; `range` into `concatMap` would queue every step up front, and
 * RxJS's queue of waiting inner Observables costs more per step the longer it is.)
 */
function chainBody(agents: readonly Agent[], steps: number) {
  const call = (i: number, run: RunContext): Observable<{ i: number; text: string }> => invoke$(agents[i % agents.length] as Agent, 'x', { run }).pipe(map((text) => ({ i, text })));
  return (run: RunContext): Observable<string> =>
    call(0, run).pipe(
      expand(({ i }) => (i + 1 < steps ? call(i + 1, run) : EMPTY)),
      last(),
      map(({ text }) => text),
    );
}

/** Seconds to run the chain to its end, journaled in `store` under `runId` when a store is given. */
async function runChain(agents: readonly Agent[], steps: number, store?: RunStore, runId?: string): Promise<number> {
  const start = process.hrtime.bigint();
  const end = await lastValueFrom(observeRun('chain', 'x', chainBody(agents, steps), store === undefined ? {} : { store, runId }));
  const time = seconds(start);
  if (end.type !== 'run-end' || !end.success) throw new Error(`the chain did not succeed: ${JSON.stringify(end)}`);
  return time;
}

/** Median ratio of `measured` over `baseline`, the two alternated so drift in load does not favour one. */
async function ratioOf(measured: (round: number) => Promise<number>, baseline: (round: number) => Promise<number>): Promise<{ ratio: number; measured: number; baseline: number }> {
  const ours: number[] = [];
  const theirs: number[] = [];
  const ratios: number[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    const first = round % 2 === 0;
    const a = first ? await measured(round) : 0;
    const b = await baseline(round);
    const m = first ? a : await measured(round);
    ours.push(m);
    theirs.push(b);
    ratios.push(m / b);
  }
  return { ratio: median(ratios), measured: median(ours), baseline: median(theirs) };
}

/** The peer: LangGraph.js, a graph of `steps` sequential nodes checkpointed by its MemorySaver. */
function langGraphChain(steps: number) {
  const State = Annotation.Root({ text: Annotation<string>() });
  // Node names are built at run time, which StateGraph's typed builder cannot follow: it is driven untyped.
  const graph = new StateGraph(State) as unknown as {
    addNode(name: string, node: (state: { text: string }) => Promise<{ text: string }>): void;
    addEdge(from: string, to: string): void;
    compile(options: { checkpointer: MemorySaver }): { invoke(input: { text: string }, config: object): Promise<{ text: string }> };
  };
  for (let i = 0; i < steps; i += 1) graph.addNode(`step${i}`, async () => ({ text: 'x' }));
  graph.addEdge(START, 'step0');
  for (let i = 1; i < steps; i += 1) graph.addEdge(`step${i - 1}`, `step${i}`);
  graph.addEdge(`step${steps - 1}`, END);
  return graph.compile({ checkpointer: new MemorySaver() });
}

/** Lines of a file read with `readline` alone (`parse`: and each given to `JSON.parse`): the floor of reading a journal back. */
async function readLines(file: string, parse = false): Promise<number> {
  let lines = 0;
  for await (const line of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) {
    // Blank lines separate appends: they hold nothing to parse.
    if (parse && line !== '') JSON.parse(line);
    lines += 1;
  }
  return lines;
}

export const suite: BenchSuite = {
  name: 'durable',
  async run(log) {
    const figures: Record<string, BenchFigure> = {};
    const dir = mkdtempSync(join(tmpdir(), 'rxagents-bench-durable-'));
    try {
      // journalOverhead: the same 1 ms chain, journaled to the file store (default durability) and not.
      const slow = [agent('slow', 1)];
      let n = 0;
      const journal = await ratioOf(
        () => runChain(slow, CHAIN_STEPS, new FileRunStore({ directory: join(dir, `overhead-${n++}`) }), 'chain'),
        () => runChain(slow, CHAIN_STEPS),
      );
      log(`journalOverhead: ${CHAIN_STEPS}-step chain of 1 ms agents, file store ${journal.measured.toFixed(3)} s / not journaled ${journal.baseline.toFixed(3)} s`);
      figures.journalOverhead = { value: journal.ratio, label: 'time of a 1,000-step 1 ms chain journaled to the file store over not journaled', bar: { op: '<=', limit: 1.1 } };

      // resumeScaling and resumeOverRead: resuming from journals of 10,000 and 100,000 records.
      const instant = [agent('instant', 0)];
      const journalOf = async (records: number): Promise<{ store: FileRunStore; file: string }> => {
        const directory = join(dir, `resume-${records}`);
        const store = new FileRunStore({ directory });
        await runChain(instant, Math.round((records - 2) / RECORDS_PER_CALL), store, 'chain');
        const files = (await readdir(directory)).filter((name) => name.endsWith('.jsonl'));
        return { store, file: join(directory, files[0] as string) };
      };
      const small = await journalOf(10_000);
      const large = await journalOf(100_000);
      const resumeOf = (store: FileRunStore, records: number) => () => runChain(instant, Math.round((records - 2) / RECORDS_PER_CALL), store, 'chain');
      const scaling = await ratioOf(resumeOf(large.store, 100_000), resumeOf(small.store, 10_000));
      log(`resumeScaling: resume from 100,000 records ${scaling.measured.toFixed(3)} s / from 10,000 records ${scaling.baseline.toFixed(3)} s`);
      figures.resumeScaling = { value: scaling.ratio, label: 'time to resume from a 100,000-record journal over a 10,000-record one', bar: { op: '<=', limit: 12 } };
      const overRead = await ratioOf(resumeOf(large.store, 100_000), async () => {
        const start = process.hrtime.bigint();
        await readLines(large.file);
        return seconds(start);
      });
      log(`resumeOverRead: resume from 100,000 records ${overRead.measured.toFixed(3)} s / readline over its file ${overRead.baseline.toFixed(3)} s`);
      figures.resumeOverRead = { value: overRead.ratio, label: 'time to resume from a 100,000-record journal over reading its file with readline (read against parseFloor: resumeOverParseFloor)' };
      // What reading a journal back cannot go below: every line parsed as JSON (records are JSON lines).
      const parseFloor = await ratioOf(
        async () => {
          const start = process.hrtime.bigint();
          await readLines(large.file, true);
          return seconds(start);
        },
        async () => {
          const start = process.hrtime.bigint();
          await readLines(large.file);
          return seconds(start);
        },
      );
      log(`parseFloor: readline + JSON.parse of each line ${parseFloor.measured.toFixed(3)} s / readline alone ${parseFloor.baseline.toFixed(3)} s`);
      figures.parseFloor = { value: parseFloor.ratio, label: 'time to read a 100,000-record journal with readline and JSON.parse each line over readline alone (no bar: the floor under resumeOverRead)' };
      // A resume parses every line as JSON: what it costs beyond that floor is the toolkit's own.
      figures.resumeOverParseFloor = { value: overRead.ratio / parseFloor.ratio, label: 'resumeOverRead over parseFloor: resuming a 100,000-record journal over reading it with readline and JSON.parse', bar: { op: '<=', limit: 2 } };

      // durableOverLangGraph: 1,000 instant steps on our in-memory store / LangGraph.js with its MemorySaver.
      const graph = langGraphChain(CHAIN_STEPS);
      let thread = 0;
      const peer = await ratioOf(
        () => runChain(instant, CHAIN_STEPS, new MemoryRunStore(), `memory-${thread}`),
        async () => {
          const start = process.hrtime.bigint();
          await graph.invoke({ text: 'x' }, { configurable: { thread_id: `thread-${thread++}` }, recursionLimit: CHAIN_STEPS * 2 });
          return seconds(start);
        },
      );
      log(`durableOverLangGraph: ours (memory store) ${peer.measured.toFixed(3)} s / LangGraph.js (MemorySaver) ${peer.baseline.toFixed(3)} s`);
      figures.durableOverLangGraph = { value: peer.ratio, label: 'time of a 1,000-step durable chain on the memory store over LangGraph.js with MemorySaver', bar: { op: '<=', limit: 0.5 } };

      // storedViewerOverMemory and liveFollowers: serving stored and live runs to viewers of a registry.
      Object.assign(figures, await storedRunReads(dir, ratioOf, log));

      // redisJournalOverhead: the 1 ms chain journaled to the Redis store / not journaled.
      const binary = findRedisServer();
      if (binary === undefined) {
        log('redisJournalOverhead skipped: redis-server is not on the PATH (apt-get install redis-server)');
      } else {
        const server = await startRedisServer(binary, { appendOnly: false, dirPrefix: 'rxagents-bench-durable-redis-' });
        const client = new Redis({ port: server.port, host: '127.0.0.1' });
        try {
          let id = 0;
          const store = new RedisRunStore(client);
          const redis = await ratioOf(
            () => runChain(slow, CHAIN_STEPS, store, `chain-${id++}`),
            () => runChain(slow, CHAIN_STEPS),
          );
          log(`redisJournalOverhead: 1 ms chain, Redis store ${redis.measured.toFixed(3)} s / not journaled ${redis.baseline.toFixed(3)} s`);
          figures.redisJournalOverhead = { value: redis.ratio, label: 'time of a 1,000-step 1 ms chain journaled to the Redis store over not journaled', bar: { op: '<=', limit: 1.5 } };
        } finally {
          client.disconnect();
          await server.stop();
        }
      }
      return figures;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
