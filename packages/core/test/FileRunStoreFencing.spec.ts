import { appendFile, readdir, readFile, stat, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { VirtualTimeScheduler } from 'rxjs';
import { ConfigError, RunJournalCorruptError, RunLeaseLostError } from '../src';
import { FileRunStore, type StaleRecordReport, type TornRecordReport } from '@rxagents/core/file-store';
import { appendBytes } from '../src/store/file/journalFormat';
import { takeover } from './support/fileTakeover';
import { freshDirectories } from './support/freshDirectories';
import { delta, end, readAll, start } from './support/runStoreContract';

const freshDirectory = freshDirectories('rxagents-file-fencing-');

async function journalOf(directory: string): Promise<string> {
  const journals = (await readdir(directory)).filter((name) => name.endsWith('.jsonl'));
  expect(journals).toHaveLength(1);
  return join(directory, journals[0] as string);
}

/** The journal's text with its 1-based line `line` passed through `change`. */
async function changeLine(journal: string, line: number, change: (text: string) => string): Promise<void> {
  const lines = (await readFile(journal, 'utf8')).split('\n');
  lines[line - 1] = change(lines[line - 1] as string);
  await writeFile(journal, lines.join('\n'));
}

describe('FileRunStore fencing', () => {
  it('gives each lease of a run a higher epoch, across release and lapse, and fences the journal with it', async () => {
    const scheduler = new VirtualTimeScheduler();
    const directory = await freshDirectory();
    const store = new FileRunStore({ directory, scheduler });
    const first = await store.acquireLease('r1', 100);
    await store.append('r1', [start('r1')], first);
    await store.releaseLease(first);
    const second = await store.acquireLease('r1', 100);
    scheduler.schedule(() => undefined, 200);
    scheduler.flush();
    const third = await new FileRunStore({ directory, scheduler }).acquireLease('r1', 100);
    expect([first.epoch, second.epoch, third.epoch]).toEqual([1, 2, 3]);
    expect((await store.renewLease(third, 100)).epoch).toBe(3);
    const fences = (await readFile(await journalOf(directory), 'utf8')).split('\n').filter((line) => line.startsWith('{"fence"'));
    expect(fences.map((line) => (JSON.parse(line) as { fence: number }).fence)).toEqual([1, 2, 3]);
    expect(await readAll(store, 'r1')).toHaveLength(1);
  });

  it('skips and reports an append of an older epoch after a newer fence, and counts on from the current story', async () => {
    const directory = await freshDirectory();
    const stale: StaleRecordReport[] = [];
    const store = new FileRunStore({ directory, onStaleRecord: (report) => stale.push(report) });
    const old = await store.acquireLease('r1', 60_000);
    await store.append('r1', [start('r1'), delta('r1', 'Once ')], old);
    await store.releaseLease(old);
    const current = await store.acquireLease('r1', 60_000);
    const journal = await journalOf(directory);
    // What a process paused past lease 1 writes when it goes on: its append lands after fence 2.
    await appendFile(journal, appendBytes(2, old.epoch, [delta('r1', 'zombie ')], { appendedAt: 5, status: 'running' }));
    await store.append('r1', [delta('r1', 'upon'), end('r1')], current);
    expect((await readAll(store, 'r1')).map((record) => [record.seq, record.event.type === 'text-delta' ? record.event.delta : record.event.type])).toEqual([
      [0, 'run-start'],
      [1, 'Once '],
      [2, 'upon'],
      [3, 'run-end'],
    ]);
    expect(stale).toEqual([{ runId: 'r1', file: journal, line: 10, records: 1, epoch: 1, currentEpoch: 2 }]);
    expect(await new FileRunStore({ directory }).summary('r1')).toMatchObject({ status: 'succeeded', records: 4 });

    const emitWarning = jest.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    try {
      await readAll(new FileRunStore({ directory }), 'r1');
      expect(emitWarning).toHaveBeenCalledWith(expect.stringContaining('epoch 1'), { code: 'RUN_JOURNAL_STALE' });
    } finally {
      emitWarning.mockRestore();
    }
  });

  it('refuses, writing nothing, an append under a lease whose run a newer lease fenced, even while its own clock says it lasts', async () => {
    const directory = await freshDirectory();
    const zombieClock = new VirtualTimeScheduler();
    const holderClock = new VirtualTimeScheduler();
    const zombie = new FileRunStore({ directory, scheduler: zombieClock });
    // A new run: the journal is created with the lease's fence, so a later first write by the old holder is recognisable.
    const old = await zombie.acquireLease('r1', 100);
    holderClock.schedule(() => undefined, 200);
    holderClock.flush();
    const holder = new FileRunStore({ directory, scheduler: holderClock });
    const lease = await holder.acquireLease('r1', 100);
    await expect(zombie.append('r1', [start('r1')], old)).rejects.toBeInstanceOf(RunLeaseLostError);
    await holder.append('r1', [start('r1'), delta('r1', 'mine')], lease);
    expect((await readAll(holder, 'r1')).map((record) => record.seq)).toEqual([0, 1]);
  });

  it('creates a new run\'s journal with its first lease\'s fence, and still takes only the root run-start as its first record', async () => {
    const directory = await freshDirectory();
    const store = new FileRunStore({ directory });
    const lease = await store.acquireLease('r1', 60_000);
    expect(await store.summary('r1')).toBeUndefined();
    expect((await store.list()).map((summary) => summary.runId)).toEqual([]);
    await expect(store.append('r1', [delta('r1', 'x')], lease)).rejects.toBeInstanceOf(ConfigError);
    await store.append('r1', [start('r1')], lease);
    expect(await store.summary('r1')).toMatchObject({ name: 'story', records: 1 });
  });

  it('refuses a changed byte inside a recorded delta with a RunJournalCorruptError naming the line', async () => {
    const directory = await freshDirectory();
    const store = new FileRunStore({ directory });
    await store.append('r1', [start('r1')]);
    await store.append('r1', [delta('r1', 'The whales '), delta('r1', 'sing'), end('r1')]);
    const journal = await journalOf(directory);
    await changeLine(journal, 5, (text) => text.replace('whales', 'whalez'));
    const failure = await readAll(store, 'r1').catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(RunJournalCorruptError);
    expect(failure).toMatchObject({ file: journal, line: 7, reason: expect.stringMatching(/checksum.*lines 5-7/) });
  });

  it('takes a damaged complete last commit line for corruption, not for a torn end', async () => {
    const directory = await freshDirectory();
    const torn: TornRecordReport[] = [];
    const store = new FileRunStore({ directory, onTornRecord: (report) => torn.push(report) });
    await store.append('r1', [start('r1')]);
    await store.append('r1', [delta('r1', 'a'), delta('r1', 'b'), end('r1')]);
    const journal = await journalOf(directory);
    const intact = await readFile(journal, 'utf8');
    // A changed digit: still JSON, its checksum fails.
    await changeLine(journal, 7, (text) => text.replace(/"appendedAt":(\d)/, (_, digit: string) => `"appendedAt":${(Number(digit) + 1) % 10}`));
    await expect(readAll(store, 'r1')).rejects.toMatchObject({ code: 'RUN_JOURNAL_CORRUPT', line: 7 });
    // A lost quote: no longer JSON, and whole (its newline is there).
    await writeFile(journal, intact);
    await changeLine(journal, 7, (text) => text.replace('"status"', 'status"'));
    await expect(readAll(store, 'r1')).rejects.toMatchObject({ code: 'RUN_JOURNAL_CORRUPT', line: 7 });
    const later = new FileRunStore({ directory, onTornRecord: (report) => torn.push(report) });
    await expect(later.summary('r1')).rejects.toBeInstanceOf(RunJournalCorruptError);
    await expect(later.append('r1', [delta('r1', 'c')])).rejects.toBeInstanceOf(RunJournalCorruptError);
    expect(torn).toEqual([]);
  });

  it('still drops a genuinely unfinished last append as a torn end', async () => {
    const directory = await freshDirectory();
    const torn: TornRecordReport[] = [];
    const store = new FileRunStore({ directory, onTornRecord: (report) => torn.push(report) });
    await store.append('r1', [start('r1')]);
    await store.append('r1', [delta('r1', 'a'), delta('r1', 'b'), end('r1')]);
    const journal = await journalOf(directory);
    const size = (await stat(journal)).size;
    await truncate(journal, size - 20);
    const later = new FileRunStore({ directory, onTornRecord: (report) => torn.push(report) });
    expect((await readAll(later, 'r1')).map((record) => record.seq)).toEqual([0]);
    expect(await later.summary('r1')).toMatchObject({ records: 1, status: 'running' });
    expect(torn).toEqual([expect.objectContaining({ line: 4 })]);
  });

  it.each(['any-moment', 'before-a-write'] as const)(
    'keeps the journal whole when a process paused (SIGSTOP) past its lease goes on (SIGCONT) after another took the run over, paused at %s',
    async (pauseAt) => {
      const where = { script: join(__dirname, 'support', 'fileZombie.ts'), cwd: join(__dirname, '../../..') };
      for (let trial = 0; trial < 3; trial++) {
        const outcome = await takeover(await freshDirectory(), `takeover-${trial}`, pauseAt, where);
        expect({ readable: outcome.readable, error: outcome.error, story: outcome.story, ending: outcome.ending, epoch: outcome.epoch }).toEqual({ readable: true, error: undefined, story: true, ending: 'RUN_LEASE_LOST', epoch: 2 });
        expect(outcome.holderTexts).toEqual(outcome.expectedHolderTexts);
        // Every append the paused process saw resolve is there; at most the one in flight when it was stopped besides.
        expect(outcome.zombieTexts.slice(0, outcome.resolved.length)).toEqual(outcome.resolved);
        expect(outcome.zombieTexts.length - outcome.resolved.length).toBeLessThanOrEqual(1);
        if (outcome.zombieTexts.length > outcome.resolved.length) expect(outcome.zombieTexts.at(-1)).toBe(outcome.inFlight);
        for (const report of outcome.stale) expect(report).toMatchObject({ epoch: 1, currentEpoch: 2 });
        // Paused after its checks, its write lands after the new holder's: skipped and reported, never counted.
        if (pauseAt === 'before-a-write') {
          expect(outcome.stale.length).toBeGreaterThan(0);
          expect(outcome.zombieTexts).not.toContain(outcome.inFlight);
        }
      }
    },
    120_000,
  );
});
