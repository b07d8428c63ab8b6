import type { LanguageModelV3StreamPart } from '@ai-sdk/provider';
import { streamText } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { Observable } from 'rxjs';
import { defineAgent, emptyRunView, observeRun, reduceRunView, runEventStream, stream, traceRun, type Agent, type RunEvent, type RunView } from '@rxagents/core';
import type { BenchFigure, BenchSuite } from '../BenchSuite';
import { median } from '../median';

const DELTAS = 1_000_000;
const STALLED_DELTAS = 10_000_000;
const ASYNC_DELTAS = 200_000;
const PEER_DELTAS = 20_000;
const PEER_ROUNDS = 5;
const ROUNDS = 9;
const VIEW_LARGE = 5_000;
const VIEW_SMALL = 10;
const VIEW_DELTAS = 50_000;
const WARM_UPS = 3;

/** An agent that pushes `count` one-letter chunks synchronously: the cost measured is the toolkit's, not a model's. */
function chunky(count: number): Agent {
  return defineAgent('writer', () => new Observable<string>((subscriber) => {
    for (let i = 0; i < count && !subscriber.closed; i++) subscriber.next('x');
    subscriber.complete();
  }));
}

/** An agent shaped like a model SDK's stream: an async generator of `count` one-letter chunks. */
function iterating(count: number): Agent {
  return defineAgent('writer', () =>
    (async function* () {
      for (let i = 0; i < count; i++) yield 'x';
    })(),
  );
}

/** Subscribes and resolves with how many values arrived that `counts` accepted, once the source completes. */
function counted<T>(source: Observable<T>, counts: (value: T) => boolean): Promise<number> {
  return new Promise((resolve, reject) => {
    let seen = 0;
    source.subscribe({ next: (value) => (counts(value) ? seen++ : undefined), error: reject, complete: () => resolve(seen) });
  });
}

function seconds(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1e9;
}

/** The peer: the same chunks through `stream()` alone, counted by a subscriber. */
function direct(agent: Agent): number {
  let seen = 0;
  stream(agent, 'go').subscribe(() => seen++);
  return seen;
}

/** The same chunks as text-delta events of a run two levels deep: root run > nested run > agent call. */
function nested(agent: Agent): number {
  let seen = 0;
  observeRun('outer', 'go', (run) => traceRun(run, 'inner', 'go', (inner) => stream(agent, 'go', { run: inner }))).subscribe((event) => {
    if (event.type === 'text-delta') seen++;
  });
  return seen;
}

/** {@link direct} and {@link nested} for an agent whose chunks arrive asynchronously. */
function directAsync(agent: Agent): Promise<number> {
  return counted(stream(agent, 'go'), () => true);
}

function nestedAsync(agent: Agent): Promise<number> {
  const events = observeRun('outer', 'go', (run) => traceRun(run, 'inner', 'go', (inner) => stream(agent, 'go', { run: inner })));
  return counted(events, (event) => event.type === 'text-delta');
}

/** The same alternating rounds as `eventOverhead`, for an async generator agent (a model SDK's stream). */
async function asyncOverhead(): Promise<number> {
  const agent = iterating(ASYNC_DELTAS);
  for (let i = 0; i < WARM_UPS; i++) {
    if ((await directAsync(agent)) !== ASYNC_DELTAS || (await nestedAsync(agent)) !== ASYNC_DELTAS) throw new Error('a delta went missing');
  }
  const ratios: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    let start = process.hrtime.bigint();
    await directAsync(agent);
    const d = seconds(start);
    start = process.hrtime.bigint();
    await nestedAsync(agent);
    ratios.push(seconds(start) / d);
  }
  return median(ratios);
}

/**
 * The peer: the AI SDK's own typed stream of a reply, `streamText(...).fullStream`, whose `text-delta` parts
 * a UI reads as it would read a run's events. The model is the SDK's mock, streaming `count` one-letter
 * deltas from a pull-based `ReadableStream` (an HTTP body's shape).
 */
async function aiSdkFullStream(count: number): Promise<number> {
  let pulled = 0;
  const model = new MockLanguageModelV3({
    doStream: async () => ({
      stream: new ReadableStream<LanguageModelV3StreamPart>({
        start: (controller) => {
          controller.enqueue({ type: 'stream-start', warnings: [] });
          controller.enqueue({ type: 'text-start', id: 't1' });
        },
        pull: (controller) => {
          if (pulled < count) {
            pulled++;
            controller.enqueue({ type: 'text-delta', id: 't1', delta: 'x' });
            return;
          }
          controller.enqueue({ type: 'text-end', id: 't1' });
          controller.enqueue({
            type: 'finish',
            finishReason: { unified: 'stop', raw: 'stop' },
            usage: { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: count, text: count, reasoning: 0 } },
          });
          controller.close();
        },
      }),
    }),
  });
  let seen = 0;
  for await (const part of streamText({ model, prompt: 'go', onError: () => undefined }).fullStream) if (part.type === 'text-delta') seen++;
  return seen;
}

/** Alternating rounds: {@link nestedAsync} for an async generator agent / the AI SDK's `fullStream`, the same number of deltas. */
async function overAiSdk(): Promise<number> {
  const agent = iterating(PEER_DELTAS);
  for (let i = 0; i < 2; i++) {
    if ((await aiSdkFullStream(PEER_DELTAS)) !== PEER_DELTAS || (await nestedAsync(agent)) !== PEER_DELTAS) throw new Error('a delta went missing');
  }
  const ratios: number[] = [];
  for (let round = 0; round < PEER_ROUNDS; round++) {
    let start = process.hrtime.bigint();
    await aiSdkFullStream(PEER_DELTAS);
    const peer = seconds(start);
    start = process.hrtime.bigint();
    await nestedAsync(agent);
    ratios.push(seconds(start) / peer);
  }
  return median(ratios);
}

let lastEvent: unknown;

/**
 * The floor of a per-delta event: `stream()` alone, whose subscriber builds one object shaped like a
 * `text-delta` event per chunk and keeps it (as a consumer that holds the latest event does). No run, no
 * forwarding: only the allocation every lossless event stream pays per delta.
 */
function floor(agent: Agent): number {
  let seen = 0;
  stream(agent, 'go').subscribe((delta) => {
    lastEvent = { type: 'text-delta', runId: 'r', callId: 'c', parentCallId: 'p', at: seen, agentId: 'writer', delta };
    seen++;
  });
  return seen;
}

function heapMB(): number {
  global.gc?.();
  global.gc?.();
  return process.memoryUsage().heapUsed / 1024 / 1024;
}

async function conflatedHeap(): Promise<{ grownMB: number; deltas: number }> {
  const agent = chunky(STALLED_DELTAS);
  const before = heapMB();
  let done = false;
  const events = runEventStream(
    (pace) =>
      new Observable((subscriber) =>
        observeRun('ui', 'go', (run) => stream(agent, 'go', { run }), { pace }).subscribe({
          next: (event) => subscriber.next(event),
          complete: () => {
            done = true;
            subscriber.complete();
          },
        }),
      ),
    { bufferSize: 256, delivery: 'conflate' },
  );
  // The UI reads one event and then stalls while the whole run happens.
  const reader = events.getReader();
  await reader.read();
  while (!done) await new Promise((resolve) => setImmediate(resolve));
  const grownMB = heapMB() - before;
  let deltas = 0;
  let text = 0;
  for (;;) {
    const { done: end, value } = await reader.read();
    if (end) break;
    if (value.type === 'text-delta') {
      deltas++;
      text += value.delta.length;
    }
  }
  if (text !== STALLED_DELTAS) throw new Error(`conflation lost text: ${text} of ${STALLED_DELTAS} characters`);
  return { grownMB, deltas };
}

/** A stalled reader in pace mode: how far an AsyncIterable agent (a model SDK's stream) gets ahead of it. */
async function pacedStall(): Promise<{ pulled: number; grownMB: number }> {
  let pulled = 0;
  const agent = defineAgent('writer', () =>
    (async function* () {
      for (let i = 0; i < STALLED_DELTAS; i++) {
        pulled++;
        yield 'x';
      }
    })(),
  );
  const before = heapMB();
  const events = runEventStream((pace) => observeRun('ui', 'go', (run) => stream(agent, 'go', { run }), { pace }), { bufferSize: 256 });
  const reader = events.getReader();
  await reader.read();
  // Give the run every chance to run ahead: 200 turns of the event loop with nobody reading.
  for (let i = 0; i < 200; i++) await new Promise((resolve) => setImmediate(resolve));
  const grownMB = heapMB() - before;
  const stalledAt = pulled;
  await reader.cancel();
  return { pulled: stalledAt, grownMB };
}

/** A view of a running run: a root run and `nodes - 1` agent calls under it, all started, none ended. */
function startedView(nodes: number): RunView {
  let view = reduceRunView(emptyRunView, { type: 'run-start', runId: 'r', callId: 'root', parentCallId: null, at: 0, name: 'run', input: 'go' });
  for (let i = 1; i < nodes; i++) view = reduceRunView(view, { type: 'call-start', runId: 'r', callId: `c${i}`, parentCallId: 'root', at: i, agentId: 'writer', input: 'go' });
  return view;
}

/** `count` one-letter deltas for the calls of {@link startedView}, spread over early and late calls alike. */
function spreadDeltas(nodes: number, count: number): RunEvent[] {
  const calls = nodes - 1;
  // A stride coprime with the number of calls visits every call, early and late, in a scattered order.
  let stride = Math.floor(calls * 0.618) || 1;
  while (gcd(stride, calls) !== 1) stride++;
  const events: RunEvent[] = [];
  for (let i = 0; i < count; i++) events.push({ type: 'text-delta', runId: 'r', callId: `c${1 + ((i * stride) % calls)}`, parentCallId: 'root', at: nodes + i, agentId: 'writer', delta: 'x' });
  return events;
}

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}

/** Folds `events` into `view` one by one, as `runView` does; returns the time it took, in seconds. */
function foldTime(view: RunView, events: readonly RunEvent[]): number {
  const start = process.hrtime.bigint();
  let folded = view;
  for (const event of events) folded = reduceRunView(folded, event);
  const elapsed = seconds(start);
  if (folded.at !== (events[events.length - 1] as RunEvent).at) throw new Error('a delta went missing');
  return elapsed;
}

/** Alternating rounds: time per delta folded into a view of {@link VIEW_LARGE} nodes / of {@link VIEW_SMALL} nodes, and the median ns per delta of each. */
function runViewScaling(): { ratio: number; largeNs: number; smallNs: number } {
  const large = startedView(VIEW_LARGE);
  const small = startedView(VIEW_SMALL);
  const largeDeltas = spreadDeltas(VIEW_LARGE, VIEW_DELTAS);
  const smallDeltas = spreadDeltas(VIEW_SMALL, VIEW_DELTAS);
  for (let i = 0; i < WARM_UPS; i++) {
    foldTime(large, largeDeltas);
    foldTime(small, smallDeltas);
  }
  const ratios: number[] = [];
  const largeTimes: number[] = [];
  const smallTimes: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const l = foldTime(large, largeDeltas);
    const s = foldTime(small, smallDeltas);
    largeTimes.push(l);
    smallTimes.push(s);
    ratios.push(l / s);
  }
  return { ratio: median(ratios), largeNs: (median(largeTimes) / VIEW_DELTAS) * 1e9, smallNs: (median(smallTimes) / VIEW_DELTAS) * 1e9 };
}

export const suite: BenchSuite = {
  name: 'events',
  async run(log) {
    const agent = chunky(DELTAS);
    for (let i = 0; i < WARM_UPS; i++) {
      if (direct(agent) !== DELTAS || nested(agent) !== DELTAS || floor(agent) !== DELTAS) throw new Error('a delta went missing');
    }
    const ratios: number[] = [];
    const directTimes: number[] = [];
    const nestedTimes: number[] = [];
    const floorRatios: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      let start = process.hrtime.bigint();
      direct(agent);
      const d = seconds(start);
      start = process.hrtime.bigint();
      nested(agent);
      const n = seconds(start);
      directTimes.push(d);
      nestedTimes.push(n);
      ratios.push(n / d);
      start = process.hrtime.bigint();
      floor(agent);
      floorRatios.push(seconds(start) / d);
    }
    if (lastEvent === undefined) throw new Error('the floor built no event');
    log(`1,000,000 deltas: stream() alone ${(DELTAS / median(directTimes) / 1e6).toFixed(2)} M/s, as run events two levels deep ${(DELTAS / median(nestedTimes) / 1e6).toFixed(2)} M/s`);
    const asyncRatio = await asyncOverhead();
    const peerRatio = await overAiSdk();
    const stalled = await conflatedHeap();
    log(`10,000,000 deltas into a stalled reader (conflate, buffer 256): heap grew ${stalled.grownMB.toFixed(1)} MB, delivered as ${stalled.deltas} merged deltas`);
    const paced = await pacedStall();
    log(`pace mode, stalled reader, an AsyncIterable agent of 10,000,000 deltas: ${paced.pulled} pulled while stalled (buffer 256), heap grew ${paced.grownMB.toFixed(2)} MB`);
    const viewScaling = runViewScaling();
    log(`reduceRunView, one delta: ${viewScaling.largeNs.toFixed(0)} ns into a view of ${VIEW_LARGE.toLocaleString('en-US')} nodes, ${viewScaling.smallNs.toFixed(0)} ns into one of ${VIEW_SMALL}`);
    const figures: Record<string, BenchFigure> = {
      eventOverhead: {
        value: median(ratios),
        label: 'time to stream 1,000,000 deltas as text-delta events of a two-level nested run / through stream() directly (median of per-round ratios)',
        bar: { op: '<=', limit: 1.5 },
      },
      eventFloor: {
        value: median(floorRatios),
        label: 'the least eventOverhead can be: stream() whose subscriber allocates and keeps one text-delta-shaped object per chunk / stream() alone',
      },
      eventOverheadAsyncIterable: {
        value: asyncRatio,
        label: `eventOverhead for ${ASYNC_DELTAS.toLocaleString('en-US')} deltas of an async generator agent (the shape of a model SDK's stream) instead of a synchronous Observable`,
      },
      eventsOverAiSdkFullStream: {
        value: peerRatio,
        label: `time to stream ${PEER_DELTAS.toLocaleString('en-US')} deltas of an async generator agent as text-delta events of a two-level nested run / the same deltas as text-delta parts of the AI SDK's streamText().fullStream from its mock model`,
      },
      conflatedHeapMB: {
        value: stalled.grownMB,
        label: 'heap growth in MB while 10,000,000 one-letter deltas flow into a stalled reader in conflate mode (the text itself is 9.5 MB)',
        bar: { op: '<', limit: 16 },
      },
      pacedPulledWhileStalled: {
        value: paced.pulled,
        label: 'chunks an AsyncIterable agent got to produce while the reader (pace mode, buffer 256) stalled: bounded by the buffer, not by the reply',
      },
      runViewScaling: {
        value: viewScaling.ratio,
        label: `time per text-delta folded by reduceRunView into the view of a run of ${VIEW_LARGE.toLocaleString('en-US')} nodes / of ${VIEW_SMALL} nodes (${VIEW_DELTAS.toLocaleString('en-US')} deltas spread over early and late calls, median of per-round ratios)`,
      },
    };
    return figures;
  },
};
