import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryRunStore, type RunEvent, type RunRecord, type RunStore } from '@rxagents/core';
import { FileRunStore } from '@rxagents/core/file-store';
import { createRunRegistry, type DurableRunRegistry } from '@rxagents/web';
import { readerOf, watch } from './helpers/durable';
import { startJournalWriter } from '../../core/test/support/journalWriterProcess';

/** How many lines one reading of the whole journal parses (version line, fences, blank lines and all). */
async function linesOfOneReading(directory: string, runId: string): Promise<number> {
  const store = new FileRunStore({ directory });
  for await (const record of store.read(runId)) void record;
  return store.readStats().lines;
}

const quiet = { heartbeatMs: Infinity, stallTimeoutMs: Infinity } as const;

/** A body read to its end: how many bytes, and their SHA-256 (two viewers shown the same events have the same). */
async function digestOf(body: ReadableStream<Uint8Array> | null): Promise<{ bytes: number; sha256: string }> {
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of body as ReadableStream<Uint8Array>) {
    hash.update(chunk);
    bytes += chunk.byteLength;
  }
  return { bytes, sha256: hash.digest('hex') };
}

/** A finished run of `records` records (run-start, text deltas, run-end) written straight to the store. */
async function finishedRun(store: FileRunStore, runId: string, records: number): Promise<void> {
  for (let seq = 0; seq < records; ) {
    const events: RunEvent[] = [];
    for (let i = 0; i < 50 && seq < records; i++, seq++) {
      if (seq === 0) events.push({ type: 'run-start', runId, callId: 'run', parentCallId: null, at: 0, name: 'big', input: 'go' });
      else if (seq === records - 1) events.push({ type: 'run-end', runId, callId: 'run', parentCallId: null, at: seq, success: true, durationMs: seq });
      else events.push({ type: 'text-delta', runId, callId: 'run/0', parentCallId: 'run', at: seq, agentId: 'writer', delta: `delta ${seq} ` });
    }
    await store.append(runId, events);
  }
}


describe('createRunRegistry with a file store: reads in linear time', () => {
  const directories: string[] = [];
  const registries: DurableRunRegistry[] = [];
  const freshDirectory = async (): Promise<string> => {
    const directory = await mkdtemp(join(tmpdir(), 'rxagents-registry-reads-'));
    directories.push(directory);
    return directory;
  };
  afterEach(async () => {
    registries.splice(0).forEach((registry) => registry.close());
    await Promise.all(directories.splice(0).map((directory) => rm(directory, { recursive: true, force: true })));
  });

  it('serves a finished 100,000-event run to one viewer, then to 50 at once, parsing each record of its journal about once a time', async () => {
    const store = new FileRunStore({ directory: await freshDirectory() });
    const records = 100_000;
    await finishedRun(store, 'big', records);
    const registry = createRunRegistry({ store, ...quiet });
    registries.push(registry);

    const one = await readerOf((await registry.response('big', watch())).body).rest();
    expect(one.map((message) => message.id)).toEqual(Array.from({ length: records }, (_, i) => String(i)));
    const alone = store.readStats();
    expect(alone.lines).toBeLessThanOrEqual(records * 1.1);

    const expected = await digestOf((await registry.response('big', watch())).body);
    const before = store.readStats();
    const bodies = await Promise.all(Array.from({ length: 50 }, async () => (await registry.response('big', watch())).body));
    const digests = await Promise.all(bodies.map(digestOf));
    expect(digests.every((digest) => digest.sha256 === expected.sha256 && digest.bytes === expected.bytes)).toBe(true);
    // The 50 share one follower: together they cost about one reading of the journal, not fifty.
    expect(store.readStats().lines - before.lines).toBeLessThanOrEqual(records * 2);
  }, 120_000);

  it('serves a live run that another process writes to 50 viewers for about the cost of one follower', async () => {
    const directory = await freshDirectory();
    const records = 10_000;
    // The writer stops half way until the viewers have read that far, so the run grows while they follow it.
    const pauseFile = join(directory, 'go-on');
    const live = startJournalWriter(directory, 'live', records, 10, { at: records / 2, file: pauseFile });
    await live.started;
    const store = new FileRunStore({ directory });
    const registry = createRunRegistry({ store, pollMs: 5, ...quiet });
    registries.push(registry);
    const first = readerOf((await registry.response('live', watch())).body);
    const bodies = await Promise.all(Array.from({ length: 49 }, async () => (await registry.response('live', watch())).body));
    const following = Promise.all([first.rest(), Promise.all(bodies.map(digestOf))]);
    await live.paused;
    while (store.readStats().lines < records / 2) await new Promise((resolve) => setTimeout(resolve, 5));
    const readsAtPause = store.readStats().reads;
    await writeFile(pauseFile, '');
    const [shown, digests] = await following;
    await live.done;
    expect(shown.map((message) => message.id)).toEqual(Array.from({ length: records }, (_, i) => String(i)));
    expect(new Set(digests.map((digest) => digest.sha256)).size).toBe(1);
    expect(digests[0]?.bytes).toBe(new TextEncoder().encode(shown.map((m) => `id: ${m.id}\nevent: ${m.event}\ndata: ${m.data}\n\n`).join('')).byteLength);
    const { reads, lines } = store.readStats();
    // It was followed live (read again and again as it grew), yet each line was parsed about once in all
    // (beside the follower's reads: the registry's attempts to take the run over read its first record).
    expect(reads).toBeGreaterThan(readsAtPause);
    expect(lines).toBeLessThanOrEqual((await linesOfOneReading(directory, 'live')) * 1.5);
  }, 60_000);

  it('a store read that fails while several viewers wait on their shared follower ends each of their streams with the error; a later viewer reads afresh', async () => {
    const memory = new MemoryRunStore();
    const runId = 'r1';
    await memory.append(runId, [
      { type: 'run-start', runId, callId: 'run', parentCallId: null, at: 0, name: 'story', input: 'go' },
      { type: 'run-end', runId, callId: 'run', parentCallId: null, at: 1, success: true, durationMs: 1 },
    ]);
    let failing = true;
    let reads = 0;
    const store: RunStore = {
      ...memory,
      append: (id, events, lease) => memory.append(id, events, lease),
      summary: (id) => memory.summary(id),
      list: (options) => memory.list(options),
      acquireLease: (id, ttlMs) => memory.acquireLease(id, ttlMs),
      renewLease: (lease, ttlMs) => memory.renewLease(lease, ttlMs),
      releaseLease: (lease) => memory.releaseLease(lease),
      expire: (id, afterMs) => memory.expire(id, afterMs),
      delete: (id) => memory.delete(id),
      read: (id, fromSeq) => ({
        async *[Symbol.asyncIterator](): AsyncIterator<RunRecord> {
          reads++;
          if (failing) throw new Error('disk gone');
          yield* memory.read(id, fromSeq);
        },
      }),
    };
    const registry = createRunRegistry({ store, ...quiet });
    registries.push(registry);
    const viewers = await Promise.all([0, 1, 2].map(async () => readerOf((await registry.response(runId, watch())).body)));
    const shown = await Promise.all(viewers.map((viewer) => viewer.rest()));
    expect(shown.map((messages) => messages.map((message) => message.event))).toEqual([['error'], ['error'], ['error']]);
    // One read for the three of them.
    expect(reads).toBe(1);
    failing = false;
    const later = await readerOf((await registry.response(runId, watch())).body).rest();
    expect(later.map((message) => message.id)).toEqual(['0', '1']);
  });
});
