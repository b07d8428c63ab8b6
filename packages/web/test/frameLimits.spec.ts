import { from, lastValueFrom, toArray } from 'rxjs';
import { defineAgent, invoke$, observeRun, type RunEvent, type RunEventOf } from '@rxagents/core';
import { createRunRegistry, toEventStream, toEventStreamResponse } from '@rxagents/web';
import { fromEventStream } from '@rxagents/web/client';

// 9 MiB of quotes: 18 MiB once JSON-encoded, past fromEventStream's default limit of 16 MiB characters per frame.
const reply = '"'.repeat(9 * 1024 * 1024);
const DEFAULT_MAX_FRAME_LENGTH = 16 * 1024 * 1024;

/** What a client with the default limit reads: every event, the longest frame's data, the text. */
async function read(body: ReadableStream<Uint8Array>): Promise<{ events: RunEvent[]; longest: number }> {
  let longest = 0;
  const events = await lastValueFrom(fromEventStream(new Response(body, { headers: { 'content-type': 'text/event-stream' } })).pipe(toArray()));
  for (const event of events) longest = Math.max(longest, JSON.stringify(event).length);
  return { events, longest };
}

const textOf = (events: RunEvent[]) =>
  events
    .filter((event): event is RunEventOf<'text-delta'> => event.type === 'text-delta')
    .map((event) => event.delta)
    .join('');
const rootEnd = (events: RunEvent[]) => events.find((event) => event.type === 'run-end' && event.parentCallId === null);

describe('no frame longer than the client takes', () => {
  it('a long reply in one chunk reaches a default client as several deltas, and run-end does not repeat it', async () => {
    const writer = defineAgent('writer', async () => reply);
    const { events, longest } = await read(toEventStreamResponse(observeRun('long', 'go', (run) => invoke$(writer, 'go', { run }))).body as ReadableStream<Uint8Array>);

    expect(textOf(events)).toBe(reply);
    expect(longest).toBeLessThan(DEFAULT_MAX_FRAME_LENGTH / 16);
    expect(rootEnd(events)).toMatchObject({ success: true, outputOmitted: true });
  });

  it('a stalled reader of a conflated run reads the whole text in deltas of a bounded size', async () => {
    const pieces = Array.from({ length: 9 * 1024 }, () => '"'.repeat(1024));
    const writer = defineAgent('writer', () => from(pieces));
    // The run pushes everything before the reader reads anything.
    const body = toEventStream((pace) => observeRun('long', 'go', (run) => invoke$(writer, 'go', { run }), { pace }), { delivery: 'conflate', bufferSize: 4 });
    const { events, longest } = await read(body);

    expect(textOf(events)).toBe(reply);
    expect(longest).toBeLessThan(DEFAULT_MAX_FRAME_LENGTH / 16);
    expect(rootEnd(events)).toMatchObject({ success: true });
  });

  it('a registry run with a long reply is watched to its run-end by a default client', async () => {
    const registry = createRunRegistry();
    const writer = defineAgent('writer', async () => reply);
    const { runId } = registry.start('long', 'go', (run) => invoke$(writer, 'go', { run }));
    const events = await lastValueFrom(fromEventStream(registry.response(runId, new Request('http://x/runs'))).pipe(toArray()));
    expect(textOf(events)).toBe(reply);
    expect(rootEnd(events)).toMatchObject({ success: true, outputOmitted: true });
    registry.close();
  });
});
