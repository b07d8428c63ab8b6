import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import { createParser } from 'eventsource-parser';
import { defineAgent, newRunId, observeRun, stream, type RunEvent } from '@rxagents/core';
import { toEventStreamResponse } from '@rxagents/web';
import { fromEventStream } from '@rxagents/web/client';
import type { BenchFigure, BenchSuite } from '../BenchSuite';
import { clientBundleKB } from '../clientBundleKB';
import { median } from '../median';

const DELTAS = 100_000;
const ROUNDS = 7;
const WARM_UPS = 2;

/** The model's side, the same for both: an AsyncIterable of DELTAS short chunks, as a model SDK streams. */
async function* chunks(): AsyncGenerator<string> {
  for (let i = 0; i < DELTAS; i++) yield 'tok ';
}

const writer = defineAgent('writer', () => chunks());

/** Ours: the run's events through toEventStreamResponse (pace, buffer 256). */
const ours = (request: Request): Response =>
  toEventStreamResponse((pace) => observeRun('bench', 'go', (run) => stream(writer, 'go', { run }), { pace }), { signal: request.signal });

/**
 * By hand: the same text-delta events written as SSE frames straight from the chunks, `batch` frames per
 * write: 1 is what a hand-written live endpoint does (each delta goes out as soon as it exists, as ours);
 * 256 holds deltas back to write fewer, larger chunks (shown for scale only).
 */
function byHand(batch: number): Response {
  const encoder = new TextEncoder();
  const ids = { runId: newRunId(), callId: newRunId() };
  const source = chunks();
  let id = 0;
  const body = new ReadableStream<Uint8Array>({
    pull: async (controller) => {
      let text = '';
      for (let i = 0; i < batch; i++) {
        const next = await source.next();
        if (next.done === true) {
          const end = { type: 'run-end', runId: ids.runId, callId: ids.runId, parentCallId: null, at: 0, success: true, durationMs: 0 };
          text += `id: ${id++}\nevent: run-end\ndata: ${JSON.stringify(end)}\n\n`;
          controller.enqueue(encoder.encode(text));
          controller.close();
          return;
        }
        const event = { type: 'text-delta', runId: ids.runId, callId: ids.callId, parentCallId: null, at: 0, agentId: 'writer', delta: next.value };
        text += `id: ${id++}\nevent: text-delta\ndata: ${JSON.stringify(event)}\n\n`;
      }
      controller.enqueue(encoder.encode(text));
    },
  });
  return new Response(body, { headers: { 'content-type': 'text/event-stream; charset=utf-8' } });
}

async function listen(): Promise<{ server: Server; url: string }> {
  const server = createServer(async (req, res) => {
    const aborter = new AbortController();
    res.on('close', () => aborter.abort());
    const request = new Request(`http://127.0.0.1${req.url ?? '/'}`, { signal: aborter.signal });
    const response = req.url === '/ours' ? ours(request) : byHand(req.url === '/raw-batched' ? 256 : 1);
    res.writeHead(response.status, Object.fromEntries(response.headers));
    await pipeline(Readable.fromWeb(response.body as NodeReadableStream), res).catch(() => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/** Ours: fromEventStream (each event checked with RunEventSchema's rules), counting text deltas. */
async function readOurs(url: string): Promise<number> {
  let deltas = 0;
  await new Promise<void>((resolve, reject) =>
    fromEventStream(`${url}/ours`).subscribe({
      next: (event: RunEvent) => {
        if (event.type === 'text-delta') deltas++;
      },
      error: reject,
      complete: resolve,
    }),
  );
  return deltas;
}

/** By hand: fetch, decode, the same parser, JSON.parse, counting text deltas. */
async function readByHand(url: string, path: string): Promise<number> {
  let deltas = 0;
  const parser = createParser({
    onEvent: (message) => {
      if ((JSON.parse(message.data) as { type: string }).type === 'text-delta') deltas++;
    },
  });
  const response = await fetch(`${url}${path}`);
  const reader = (response.body as ReadableStream<Uint8Array<ArrayBuffer>>).pipeThrough(new TextDecoderStream()).getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parser.feed(value);
  }
  return deltas;
}

async function timed(read: () => Promise<number>): Promise<number> {
  global.gc?.();
  const start = process.hrtime.bigint();
  const deltas = await read();
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  if (deltas !== DELTAS) throw new Error(`${deltas} of ${DELTAS} deltas arrived`);
  return seconds;
}

export const suite: BenchSuite = {
  name: 'web',
  async run(log) {
    const { server, url } = await listen();
    try {
      const oursRead = (): Promise<number> => readOurs(url);
      const rawRead = (): Promise<number> => readByHand(url, '/raw');
      const batchedRead = (): Promise<number> => readByHand(url, '/raw-batched');
      for (let i = 0; i < WARM_UPS; i++) {
        await timed(rawRead);
        await timed(oursRead);
      }
      const ratios: number[] = [];
      const batchedRatios: number[] = [];
      const oursTimes: number[] = [];
      const rawTimes: number[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        // Alternate which goes first, so a noisy neighbour hurts both alike.
        const first = round % 2 === 0;
        const raw = first ? await timed(rawRead) : 0;
        const mine = await timed(oursRead);
        const rawTime = first ? raw : await timed(rawRead);
        rawTimes.push(rawTime);
        oursTimes.push(mine);
        ratios.push(mine / rawTime);
        batchedRatios.push(mine / (await timed(batchedRead)));
      }
      log(
        `100,000 text deltas over loopback SSE: toEventStreamResponse + fromEventStream ${(DELTAS / median(oursTimes) / 1e3).toFixed(0)} k/s, ` +
          `frames by hand + eventsource-parser ${(DELTAS / median(rawTimes) / 1e3).toFixed(0)} k/s; ` +
          `against frames by hand written 256 per chunk (deltas held back): ${median(batchedRatios).toFixed(2)}x`,
      );
      const figures: Record<string, BenchFigure> = {
        sseOverhead: {
          value: median(ratios),
          label:
            'time to deliver 100,000 text deltas of a run over loopback SSE to a fromEventStream client / the same frames written by hand as each delta comes and parsed with eventsource-parser (median of per-round ratios)',
          bar: { op: '<=', limit: 1.5 },
        },
      };
      const bundle = await clientBundleKB();
      log(`a page with fromEventStream and runView, bundled by esbuild from the built packages: ${bundle.minifiedKB.toFixed(1)} KB minified, ${bundle.gzippedKB.toFixed(1)} KB gzipped`);
      figures.clientBundleKB = {
        value: bundle.gzippedKB,
        label: 'KB (gzipped) of a page that reads a run with fromEventStream and folds it with runView, bundled and minified by esbuild for the browser',
        bar: { op: '<=', limit: 30 },
      };
      return figures;
    } finally {
      server.closeAllConnections();
      server.close();
    }
  },
};
