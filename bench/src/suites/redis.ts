import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineAgent, invoke, stream } from '@rxagents/core';
import { remoteAgent, serveAgent } from '@rxagents/redis';
import { Redis } from 'ioredis';
import { from, lastValueFrom, of } from 'rxjs';
import { findRedisServer, startRedisServer } from '../../../packages/redis/test/support/redisServer';
import type { BenchFigure, BenchSuite } from '../BenchSuite';
import { median } from '../median';

const CALLS = 2_000;
const DELTAS = 20_000;
const ROUNDS = 5;
/** How many XADDs the hand-written delta writer sends per pipeline. */
const PIPELINE = 256;

/** The entries of an XREAD reply (`[[key, [[id, fields], ...]]]` or null). */
function entriesOf(reply: unknown): Array<[string, string[]]> {
  if (!Array.isArray(reply)) return [];
  return (reply as Array<[string, Array<[string, string[]]>]>).flatMap(([, entries]) => entries);
}

/**
 * The hand-written peer of `remoteCallRatio`: a loop in this process that reads requests from `requests`
 * with a blocking XREAD on its own connection and answers each with one XADD to `replies`.
 */
function startEchoLoop(port: number, requests: string, replies: string): () => void {
  const reader = new Redis({ port, host: '127.0.0.1' });
  const writer = new Redis({ port, host: '127.0.0.1' });
  let stopped = false;
  void (async () => {
    let lastId = '$';
    while (!stopped) {
      const reply = await reader.xread('BLOCK', 0, 'STREAMS', requests, lastId).catch(() => null);
      for (const [id] of entriesOf(reply)) {
        lastId = id;
        void writer.xadd(replies, 'MAXLEN', '~', 1_000, '*', 'reply', 'pong');
      }
    }
  })();
  return () => {
    stopped = true;
    reader.disconnect();
    writer.disconnect();
  };
}

/** Starts bench/src/redisPeer.ts in `mode` and resolves once it is ready; `stop` kills it. */
async function startPeer(port: number, mode: 'agent' | 'hand'): Promise<() => void> {
  const script = join(dirname(fileURLToPath(import.meta.url)), '..', 'redisPeer.ts');
  const child = spawn(process.execPath, ['--import', 'tsx', script], { env: { ...process.env, PORT: String(port), MODE: mode }, stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (data: Buffer) => {
      if (data.toString().includes('ready')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`the ${mode} peer exited with ${String(code)}`)));
  });
  return () => child.kill('SIGTERM');
}

/** Seconds of `CALLS` sequential hand-written round trips: XADD a request, blocking XREAD of its reply. */
async function handRoundTrips(client: Redis, reader: Redis, requests: string, replies: string): Promise<number> {
  let lastId = (await client.xadd(replies, '*', 'reply', 'mark')) ?? '0';
  const start = process.hrtime.bigint();
  for (let i = 0; i < CALLS; i += 1) {
    await client.xadd(requests, 'MAXLEN', '~', 1_000, '*', 'call', 'ping');
    let got = false;
    while (!got) {
      const entries = entriesOf(await reader.xread('BLOCK', 0, 'STREAMS', replies, lastId));
      for (const [id] of entries) (lastId = id), (got = true);
    }
  }
  return Number(process.hrtime.bigint() - start) / 1e9;
}

/** Seconds of `CALLS` sequential one-chunk calls of `remote`. */
async function remoteCalls(remote: ReturnType<typeof remoteAgent>): Promise<number> {
  const start = process.hrtime.bigint();
  for (let i = 0; i < CALLS; i += 1) await invoke(remote, 'ping');
  return Number(process.hrtime.bigint() - start) / 1e9;
}

/** Seconds to write `DELTAS` entries with pipelined XADDs and read them all back with XREAD on another connection. */
async function handDeltas(client: Redis, reader: Redis, key: string): Promise<number> {
  const start = process.hrtime.bigint();
  const read = (async () => {
    let lastId = '0';
    let count = 0;
    while (count < DELTAS) {
      const entries = entriesOf(await reader.xread('COUNT', 512, 'BLOCK', 0, 'STREAMS', key, lastId));
      for (const [id] of entries) (lastId = id), (count += 1);
    }
  })();
  for (let sent = 0; sent < DELTAS; sent += PIPELINE) {
    const pipeline = client.pipeline();
    for (let i = sent; i < Math.min(DELTAS, sent + PIPELINE); i += 1) pipeline.xadd(key, '*', 'delta', 'tok ');
    await pipeline.exec();
  }
  await read;
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  await client.del(key);
  return seconds;
}

/** Seconds for a remote agent to stream `DELTAS` chunks to a caller (live delivery). */
async function remoteDeltas(remote: ReturnType<typeof remoteAgent>): Promise<number> {
  const start = process.hrtime.bigint();
  await lastValueFrom(stream(remote, 'go'), { defaultValue: '' });
  return Number(process.hrtime.bigint() - start) / 1e9;
}

export const suite: BenchSuite = {
  name: 'redis',
  async run(log) {
    const binary = findRedisServer();
    if (binary === undefined) {
      log('skipped: redis-server is not on the PATH (apt-get install redis-server)');
      return {};
    }
    const server = await startRedisServer(binary, { appendOnly: false, dirPrefix: 'rxagents-bench-redis-' });
    const connect = () => new Redis({ port: server.port, host: '127.0.0.1' });
    const clients: Redis[] = [];
    const client = (): Redis => {
      const created = connect();
      clients.push(created);
      return created;
    };
    try {
      const prefix = 'bench';
      const echo = defineAgent('echo', () => of('pong'));
      const tokens = Array.from({ length: DELTAS }, () => 'tok ');
      const teller = defineAgent('teller', () => from(tokens));
      const workers = [serveAgent(client(), echo, { prefix, concurrency: 1 }), serveAgent(client(), teller, { prefix, concurrency: 1, replyMaxLen: DELTAS * 2 })];
      const caller = client();
      const remoteEcho = remoteAgent(caller, 'echo', { prefix });
      const remoteTeller = remoteAgent(caller, 'teller', { prefix, delivery: 'live' });
      const handReader = client();
      const stopEcho = startEchoLoop(server.port, 'hand:requests', 'hand:replies');

      // Warm-up (JIT, connections, consumer groups): one round of each side. Then alternating rounds, so both
      // see the same load, with no forced garbage collection between them (see docs/performance.md).
      await remoteCalls(remoteEcho);
      await handRoundTrips(caller, handReader, 'hand:requests', 'hand:replies');
      const hand: number[] = [];
      const remote: number[] = [];
      for (let round = 0; round < ROUNDS; round += 1) {
        hand.push(await handRoundTrips(caller, handReader, 'hand:requests', 'hand:replies'));
        remote.push(await remoteCalls(remoteEcho));
      }
      stopEcho();
      const handCall = median(hand);
      const remoteCall = median(remote);
      log(`${CALLS} sequential round trips: hand-written XADD + blocking XREAD ${(handCall * 1e3).toFixed(0)} ms (${((handCall / CALLS) * 1e6).toFixed(0)} µs each); one-chunk remote calls ${(remoteCall * 1e3).toFixed(0)} ms (${((remoteCall / CALLS) * 1e6).toFixed(0)} µs each)`);

      for (let i = 0; i < 3; i += 1) {
        await remoteDeltas(remoteTeller);
        await handDeltas(caller, handReader, 'hand:deltas');
      }
      const handStream: number[] = [];
      const remoteStream: number[] = [];
      for (let round = 0; round < ROUNDS; round += 1) {
        handStream.push(await handDeltas(caller, handReader, 'hand:deltas'));
        remoteStream.push(await remoteDeltas(remoteTeller));
      }
      const handRate = DELTAS / median(handStream);
      const remoteRate = DELTAS / median(remoteStream);
      log(`${DELTAS} deltas: hand-written pipelined XADD (${PIPELINE} per pipeline) read back with XREAD ${handRate.toFixed(0)}/s; streamed by a remote agent ${remoteRate.toFixed(0)}/s`);
      await Promise.all(workers.map((worker) => worker.close()));

      // The same round trips with the peers in a child process each: the worker's work then overlaps the caller's.
      const stopAgent = await startPeer(server.port, 'agent');
      const stopHand = await startPeer(server.port, 'hand');
      const remoteEchoX = remoteAgent(caller, 'echo', { prefix: 'bench-x' });
      await remoteCalls(remoteEchoX);
      await handRoundTrips(caller, handReader, 'handx:requests', 'handx:replies');
      const handX: number[] = [];
      const remoteX: number[] = [];
      for (let round = 0; round < ROUNDS; round += 1) {
        handX.push(await handRoundTrips(caller, handReader, 'handx:requests', 'handx:replies'));
        remoteX.push(await remoteCalls(remoteEchoX));
      }
      stopAgent();
      stopHand();
      const handCallX = median(handX);
      const remoteCallX = median(remoteX);
      log(`the same with the worker and the hand-written peer in child processes: hand-written ${((handCallX / CALLS) * 1e6).toFixed(0)} µs, remote ${((remoteCallX / CALLS) * 1e6).toFixed(0)} µs per call`);

      const figures: Record<string, BenchFigure> = {
        remoteCallRatio: { value: remoteCall / handCall, label: `time of ${CALLS} sequential one-chunk remote calls / of ${CALLS} hand-written XADD + blocking XREAD round trips (peer: a loop in this process answering with XADD)`, bar: { op: '<=', limit: 2 } },
        remoteCallRatioAcrossProcesses: { value: remoteCallX / handCallX, label: 'remoteCallRatio with the worker and the hand-written peer each in a child process' },
        remoteCallUs: { value: (remoteCall / CALLS) * 1e6, label: 'µs per one-chunk remote call (caller and worker in one process, Redis on loopback)' },
        remoteDeltaRatio: { value: remoteRate / handRate, label: 'deltas/s streamed by a remote agent / deltas/s of a hand-written pipelined XADD loop read back with XREAD', bar: { op: '>=', limit: 0.5 } },
        remoteDeltasPerSecond: { value: remoteRate, label: 'deltas/s streamed by a remote agent (live delivery)' },
      };
      return figures;
    } finally {
      for (const created of clients) created.disconnect();
      await server.stop();
    }
  },
};
