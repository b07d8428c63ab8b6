import { appendFile, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { RunEvent } from '../src';
import { FileRunStore, type StaleRecordReport, type TornRecordReport } from '@rxagents/core/file-store';
import { appendBytes } from '../src/store/file/journalFormat';
import { delta, end, readAll, start } from './support/runStoreContract';
import { freshDirectories } from './support/freshDirectories';
import { startJournalWriter } from './support/journalWriterProcess';

const freshDirectory = freshDirectories('rxagents-file-reads-');

/** Appends `records` records to `runId` (its run-start first) in appends of 1 to 13 records. */
async function writeRun(store: FileRunStore, runId: string, records: number, text = (seq: number) => `delta ${seq} `): Promise<void> {
  let seq = 0;
  while (seq < records) {
    const size = Math.min(records - seq, 1 + ((seq * 7) % 13));
    const events: RunEvent[] = [];
    for (let i = 0; i < size; i++, seq++) events.push(seq === 0 ? start(runId) : delta(runId, text(seq)));
    await store.append(runId, events);
  }
}

/** Reads the journal as a web viewer does: from a cursor, at most `page` records a read. */
async function readInPages(store: FileRunStore, runId: string, page: number): Promise<number[]> {
  const seqs: number[] = [];
  for (;;) {
    let taken = 0;
    for await (const record of store.read(runId, seqs.length)) {
      seqs.push(record.seq);
      if (++taken === page) break;
    }
    if (taken < page) return seqs;
  }
}


describe('FileRunStore reads from a position', () => {
  it('serves a 100,000-record journal in pages of 256 from a cursor by parsing each line about once', async () => {
    const directory = await freshDirectory();
    const writer = new FileRunStore({ directory });
    await writeRun(writer, 'big', 100_000);
    await readAll(writer, 'big');
    // What one reading of the whole journal parses (blank lines, fences and all).
    const once = writer.readStats().lines;
    const store = new FileRunStore({ directory });
    const seqs = await readInPages(store, 'big', 256);
    expect(seqs.length).toBe(100_000);
    expect(seqs.every((seq, index) => seq === index)).toBe(true);
    const { reads, lines } = store.readStats();
    expect(reads).toBe(Math.ceil(100_000 / 256));
    // Each page starts where an append ends, at most an append (13 records) before its cursor.
    expect(lines).toBeLessThanOrEqual(once * 1.1);
  }, 120_000);

  it('starts a read from fromSeq near fromSeq, in a journal whose positions were thinned out, with the same records as a read from the start', async () => {
    const store = new FileRunStore({ directory: await freshDirectory() });
    await writeRun(store, 'run', 30_000);
    const all = await readAll(store, 'run');
    const perRecord = store.readStats().lines / all.length;
    for (const fromSeq of [0, 1, 2, 13, 4_099, 17_777, 29_990, 29_999, 30_000]) {
      const before = store.readStats().lines;
      const read = await readAll(store, 'run', fromSeq);
      expect(read).toEqual(all.slice(fromSeq));
      // 30,000 records over at most 1,024 spread positions: a spacing of 32, and an append of at most 13.
      expect(store.readStats().lines - before).toBeLessThanOrEqual((30_000 - fromSeq + 32 + 13) * perRecord + 2);
    }
  }, 60_000);

  it('reads a journal written anew at the same path from its first line, not from positions learnt in the old one', async () => {
    const directory = await freshDirectory();
    const reader = new FileRunStore({ directory });
    const other = new FileRunStore({ directory });
    await writeRun(other, 'run', 2_000);
    expect((await readInPages(reader, 'run', 256)).length).toBe(2_000);
    // Another store deletes the run and writes it again, longer and with other texts.
    await other.delete('run');
    await writeRun(other, 'run', 3_000, (seq) => `again ${seq} and more`);
    const read = await readAll(reader, 'run', 1_500);
    expect(read.map((record) => record.seq)).toEqual(Array.from({ length: 1_500 }, (_, i) => 1_500 + i));
    expect(read.map((record) => (record.event.type === 'text-delta' ? record.event.delta : ''))).toEqual(Array.from({ length: 1_500 }, (_, i) => `again ${1_500 + i} and more`));
  }, 60_000);

  it('follows a live journal that another process writes: each read goes on where the last one ended', async () => {
    const directory = await freshDirectory();
    const records = 5_000;
    const live = startJournalWriter(directory, 'live', records, 5);
    await live.started;
    const store = new FileRunStore({ directory });
    const seqs: number[] = [];
    let polls = 0;
    while (seqs.length < records) {
      for await (const record of store.read('live', seqs.length)) seqs.push(record.seq);
      polls++;
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    await live.done;
    expect(seqs.every((seq, index) => seq === index)).toBe(true);
    // It read while the journal grew (not once at the end), and parsed each line about once however often it read.
    expect(polls).toBeGreaterThan(20);
    const fresh = new FileRunStore({ directory });
    await readAll(fresh, 'live');
    expect(store.readStats().lines).toBeLessThanOrEqual(fresh.readStats().lines * 1.1 + polls);
  }, 60_000);

  it('reports no torn end while a lease of the run lasts (an append under way), and reports it once none does', async () => {
    const directory = await freshDirectory();
    const holder = new FileRunStore({ directory });
    const lease = await holder.acquireLease('run', 60_000);
    await holder.append('run', [start('run'), delta('run', 'a')], lease);
    const [name] = (await readdir(directory)).filter((each) => each.endsWith('.jsonl'));
    const journal = join(directory, name as string);
    const line = (await readFile(journal, 'utf8')).split('\n').length;
    // Half an append, as a reader may find one the holder is writing.
    await appendFile(journal, '{"seq":2,"event":{"type":"text-de');
    const torn: TornRecordReport[] = [];
    const reader = new FileRunStore({ directory, onTornRecord: (report) => torn.push(report) });
    expect((await readAll(reader, 'run')).map((record) => record.seq)).toEqual([0, 1]);
    expect(torn).toEqual([]);
    await holder.releaseLease(lease);
    expect((await readAll(reader, 'run')).map((record) => record.seq)).toEqual([0, 1]);
    expect(torn).toEqual([{ runId: 'run', file: journal, line, bytes: 33 }]);
  });

  it('carries the highest epoch across a read from a position: an append of an older epoch after it is still skipped and reported at its line', async () => {
    const directory = await freshDirectory();
    const writer = new FileRunStore({ directory });
    const old = await writer.acquireLease('r1', 60_000);
    await writer.append('r1', [start('r1'), delta('r1', 'Once ')], old);
    await writer.releaseLease(old);
    const current = await writer.acquireLease('r1', 60_000);
    const stale: StaleRecordReport[] = [];
    const reader = new FileRunStore({ directory, onStaleRecord: (report) => stale.push(report) });
    // The reader learns the place after fence 2, where the highest epoch is 2.
    expect(await readAll(reader, 'r1')).toHaveLength(2);
    const [name] = (await readdir(directory)).filter((each) => each.endsWith('.jsonl'));
    const journal = join(directory, name as string);
    // A process paused past lease 1 goes on: its append lands after fence 2.
    await appendFile(journal, appendBytes(2, old.epoch, [delta('r1', 'zombie ')], { appendedAt: 5, status: 'running' }));
    await writer.append('r1', [delta('r1', 'upon'), end('r1')], current);
    const before = reader.readStats().lines;
    const read = await readAll(reader, 'r1', 2);
    expect(read.map((record) => (record.event.type === 'text-delta' ? record.event.delta : record.event.type))).toEqual(['upon', 'run-end']);
    // It started after fence 2: only the two appends after it were parsed (each a blank line and its records).
    expect(reader.readStats().lines - before).toBe(2 + 3);
    const fromFirstLine: StaleRecordReport[] = [];
    await readAll(new FileRunStore({ directory, onStaleRecord: (report) => fromFirstLine.push(report) }), 'r1');
    expect(stale).toEqual(fromFirstLine);
    expect(stale).toMatchObject([{ records: 1, epoch: 1, currentEpoch: 2 }]);
  });
});
