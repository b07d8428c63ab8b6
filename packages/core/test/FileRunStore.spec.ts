import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createHash, randomUUID } from 'node:crypto';
import { appendFile, lstat, mkdir, readdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { VirtualTimeScheduler } from 'rxjs';
import { ConfigError, RunJournalCorruptError, RunJournalVersionError, RunLeasedError, RunStoreError, type RunEvent } from '../src';
import { FileRunStore, type TornRecordReport } from '@rxagents/core/file-store';
import { delta, describeRunStore, end, readAll, start } from './support/runStoreContract';
import { freshDirectories } from './support/freshDirectories';
import { itOnTmpfs, onSmallDisk } from './support/smallDisk';

const freshDirectory = freshDirectories('rxagents-file-store-');


describeRunStore('file', async () => {
  const scheduler = new VirtualTimeScheduler();
  const directory = await freshDirectory();
  return {
    store: new FileRunStore({ directory, scheduler }),
    advance: async (ms) => {
      scheduler.schedule(() => undefined, ms);
      scheduler.flush();
    },
  };
});

/** The journal file of the only run in `directory`. */
async function journalOf(directory: string): Promise<string> {
  const journals = (await readdir(directory)).filter((name) => name.endsWith('.jsonl'));
  expect(journals).toHaveLength(1);
  return join(directory, journals[0] as string);
}

describe('FileRunStore', () => {
  it('refuses a missing directory or an unknown option with a ConfigError naming it', () => {
    expect(() => new FileRunStore({} as never)).toThrow(/directory/);
    expect(() => new FileRunStore({ directory: 'runs', durability: 'always' } as never)).toThrow(ConfigError);
    expect(() => new FileRunStore({ directory: 'runs', clock: 1 } as never)).toThrow(/clock/);
  });

  it('refuses an event that is not a valid run event before writing any of the append', async () => {
    const directory = await freshDirectory();
    const store = new FileRunStore({ directory });
    await store.append('r1', [start('r1')]);
    const bad = { ...delta('r1', 'x'), at: Number.NaN };
    await expect(store.append('r1', [delta('r1', 'fine'), bad])).rejects.toMatchObject({ code: 'CONFIG_INVALID', path: 'events[1].at' });
    expect(await readAll(store, 'r1')).toHaveLength(1);
  });

  it('keeps what it appended when a new store opens the directory, and writes it as JSON lines after a version line', async () => {
    const directory = await freshDirectory();
    await new FileRunStore({ directory, durability: 'fsync' }).append('r1', [start('r1'), delta('r1', 'Once ')]);
    const reopened = new FileRunStore({ directory });
    await reopened.append('r1', [end('r1')]);
    expect((await readAll(reopened, 'r1')).map((record) => record.event)).toEqual([start('r1'), delta('r1', 'Once '), end('r1')]);
    expect(await reopened.summary('r1')).toMatchObject({ runId: 'r1', name: 'story', status: 'succeeded', records: 3 });
    // Each append starts with a newline (a blank line before it) and ends with its commit line, which carries its CRC-32.
    const lines = (await readFile(await journalOf(directory), 'utf8')).split('\n');
    expect(JSON.parse(lines[0] as string)).toEqual({ rxagentsJournal: 2, runId: 'r1' });
    expect(lines.map((line) => (line === '' ? '' : Object.keys(JSON.parse(line)).join(',')))).toEqual([
      'rxagentsJournal,runId',
      '',
      'seq,epoch,event',
      'seq,epoch,event,appendedAt,status,crc',
      '',
      'seq,epoch,event,appendedAt,status,crc',
      '',
    ]);
  });

  it('drops a torn end (a line without its newline, or an append without its last line) and reports it', async () => {
    const directory = await freshDirectory();
    const torn: TornRecordReport[] = [];
    const store = new FileRunStore({ directory, onTornRecord: (report) => torn.push(report) });
    await store.append('r1', [start('r1'), delta('r1', 'Once ')]);
    const journal = await journalOf(directory);
    const intact = (await stat(journal)).size;
    await appendFile(journal, '{"seq":2,"event":{"type":"text-del');
    expect((await readAll(store, 'r1')).map((record) => record.seq)).toEqual([0, 1]);
    expect(torn).toEqual([{ runId: 'r1', file: journal, line: 5, bytes: (await stat(journal)).size - intact }]);
    expect(await store.summary('r1')).toMatchObject({ records: 2 });

    // The next append goes after it (only a new lease cuts anything off): its leading newline ends the
    // unfinished line, which stays dropped, and the append goes on from the last complete record.
    const torn1 = (await stat(journal)).size - intact;
    await store.append('r1', [delta('r1', 'upon')]);
    expect((await readAll(store, 'r1')).map((record) => record.seq)).toEqual([0, 1, 2]);
    expect(torn[1]).toEqual({ runId: 'r1', file: journal, line: 5, bytes: torn1 });

    // Complete lines of an append whose last line is missing are torn too: none of that append is a record.
    const before = (await stat(journal)).size;
    await appendFile(journal, `\n${JSON.stringify({ seq: 3, epoch: 0, event: delta('r1', ' a') })}\n${JSON.stringify({ seq: 4, epoch: 0, event: delta('r1', ' time') })}\n`);
    expect((await readAll(store, 'r1')).map((record) => record.seq)).toEqual([0, 1, 2]);
    expect(torn[3]).toEqual({ runId: 'r1', file: journal, line: 7, bytes: (await stat(journal)).size - before });

    // A new lease cuts the torn end off before its fence.
    await store.acquireLease('r1', 1_000);
    expect((await readFile(journal, 'utf8')).includes(' time')).toBe(false);
    expect((await readAll(store, 'r1')).map((record) => record.seq)).toEqual([0, 1, 2]);
  });

  it('reports a torn end as a Node process warning when no onTornRecord is given', async () => {
    const directory = await freshDirectory();
    const store = new FileRunStore({ directory });
    await store.append('r1', [start('r1')]);
    await appendFile(await journalOf(directory), '{"seq":1,');
    const emitWarning = jest.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    try {
      expect(await readAll(store, 'r1')).toHaveLength(1);
      expect(emitWarning).toHaveBeenCalledTimes(1);
      expect(emitWarning).toHaveBeenCalledWith(expect.stringContaining('line 4'), { code: 'RUN_JOURNAL_TORN' });
    } finally {
      emitWarning.mockRestore();
    }
  });

  it('summarises a journal from its ends, whether its last line is long or a torn end spans many lines', async () => {
    const directory = await freshDirectory();
    const store = new FileRunStore({ directory, onTornRecord: () => undefined });
    await store.append('r1', [start('r1'), delta('r1', 'Once ')]);
    await store.append('r1', [delta('r1', 'x'.repeat(50_000)), end('r1', false)]);
    await store.append('r1', [delta('r1', 'y'.repeat(60_000))]);
    expect(await new FileRunStore({ directory }).summary('r1')).toMatchObject({ status: 'failed', records: 5 });
    const torn = `\n${Array.from({ length: 500 }, (_, index) => `${JSON.stringify({ seq: 5 + index, epoch: 0, event: delta('r1', 'z'.repeat(100)) })}\n`).join('')}`;
    await appendFile(await journalOf(directory), torn);
    const later = new FileRunStore({ directory, onTornRecord: () => undefined });
    expect(await later.summary('r1')).toMatchObject({ status: 'failed', records: 5 });
    expect((await later.list()).map((summary) => summary.records)).toEqual([5]);
    await later.append('r1', [delta('r1', 'after')]);
    expect((await readAll(later, 'r1')).map((record) => record.seq)).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('refuses a journal damaged in the middle with a RunJournalCorruptError naming the file and the line', async () => {
    const directory = await freshDirectory();
    const store = new FileRunStore({ directory });
    await store.append('r1', [start('r1')]);
    await store.append('r1', [delta('r1', 'Once ')]);
    await store.append('r1', [end('r1')]);
    const journal = await journalOf(directory);
    const lines = (await readFile(journal, 'utf8')).split('\n');
    expect(lines[4]).toContain('Once ');
    await writeFile(journal, [...lines.slice(0, 4), '{"seq":1,"epoch":0,"event":{"type":"text-delta"', ...lines.slice(5)].join('\n'));
    const failure = await readAll(store, 'r1').catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(RunJournalCorruptError);
    expect(failure).toMatchObject({ code: 'RUN_JOURNAL_CORRUPT', file: journal, line: 5 });

    // A line that is JSON but not a valid run event is damage too.
    await writeFile(journal, [...lines.slice(0, 4), lines[4]?.replace('"Once "', '42'), ...lines.slice(5)].join('\n'));
    await expect(readAll(store, 'r1')).rejects.toMatchObject({ code: 'RUN_JOURNAL_CORRUPT', line: 5, reason: expect.stringMatching(/event\.delta/) });
  });

  it('refuses a journal without a version line, or of another version, with a RunJournalVersionError naming the file', async () => {
    const directory = await freshDirectory();
    const store = new FileRunStore({ directory });
    await store.append('r1', [start('r1'), end('r1')]);
    const journal = await journalOf(directory);
    const [header, ...records] = (await readFile(journal, 'utf8')).split('\n');

    await writeFile(journal, records.join('\n'));
    const missing = await readAll(store, 'r1').catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(RunJournalVersionError);
    expect(missing).toMatchObject({ code: 'RUN_JOURNAL_VERSION', file: journal, found: undefined });
    expect(String((missing as Error).message)).toContain(journal);

    // Journals of format 1 (no epochs, no checksums) are refused, not misread.
    await writeFile(journal, [header?.replace('"rxagentsJournal":2', '"rxagentsJournal":1'), ...records].join('\n'));
    await expect(readAll(store, 'r1')).rejects.toMatchObject({ code: 'RUN_JOURNAL_VERSION', found: 1, expected: 2 });
    // A process that finds the old journal later cannot summarise it, append to it or list it either.
    const later = new FileRunStore({ directory });
    await expect(later.summary('r1')).rejects.toBeInstanceOf(RunJournalVersionError);
    await expect(later.append('r1', [delta('r1', 'x')])).rejects.toBeInstanceOf(RunJournalVersionError);
    await expect(later.list()).rejects.toBeInstanceOf(RunJournalVersionError);
  });

  itOnTmpfs('refuses an append to a full disk with a retryable RunStoreError and writes none of it', async () => onSmallDisk(await freshDirectory(), async (directory, fill) => {
    const store = new FileRunStore({ directory });
    await store.append('r1', [start('r1')]);
    await fill();
    const failure = await store.append('full', [start('full'), delta('full', 'Once ')]).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(RunStoreError);
    expect(failure).toMatchObject({ code: 'RUN_STORE_FAILED', operation: 'append', runId: 'full', retryable: true, cause: expect.objectContaining({ code: 'ENOSPC' }) });
    expect(await readAll(store, 'full')).toEqual([]);
    expect(await store.summary('full')).toBeUndefined();
    expect((await store.list()).map((summary) => summary.runId)).toEqual(['r1']);
  }));

  it('cuts an append that failed part way back off the file: the journal reads back exactly the earlier records', async () => {
    const directory = await freshDirectory();
    // A real partial write: under a 1 MiB file size limit the 3.6 MB append is written in part, then fails (EFBIG).
    const script = join(__dirname, 'support', 'fileStoreDiskFull.ts');
    const child = spawnSync('bash', ['-c', `ulimit -f 1024 && exec "${process.execPath}" --import tsx "${script}"`], {
      cwd: join(__dirname, '../../..'),
      env: { ...process.env, DIRECTORY: directory },
      encoding: 'utf8',
    });
    const outcome: unknown = child.stdout.trim() === '' ? { stderr: child.stderr } : JSON.parse(child.stdout);
    expect(outcome).toEqual({ failed: true, name: 'RunStoreError', code: 'RUN_STORE_FAILED', retryable: false, cause: 'EFBIG' });
    const store = new FileRunStore({ directory, onTornRecord: () => undefined });
    expect((await readAll(store, 'full')).map((record) => record.event)).toEqual([start('full'), delta('full', 'Once '), delta('full', 'upon ')]);
    expect((await stat(await journalOf(directory))).size).toBeLessThan(1_000);
  }, 60_000);

  it('gives a lease to exactly one of two processes that race for it', async () => {
    const directory = await freshDirectory();
    const runs = 25;
    const racers = [racer(directory, runs), racer(directory, runs)];
    await Promise.all(racers.map((each) => each.ready));
    for (const each of racers) each.go();
    const [first, second] = await Promise.all(racers.map((each) => each.results));
    for (const each of racers) each.end();
    for (let index = 0; index < runs; index++) {
      expect([first?.[index], second?.[index]].sort()).toEqual(['RUN_LEASED', 'leased']);
    }
    expect((await readdir(directory)).filter((name) => name.endsWith('.lock'))).toEqual([]);
  }, 60_000);

  it('breaks a lease lock left by a process that exited', async () => {
    const directory = await freshDirectory();
    const exited = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    await mkdir(directory, { recursive: true });
    await writeFile(join(directory, 'r-r1.lock'), JSON.stringify({ pid: Number(exited.stdout), host: hostname(), token: 'left' }));
    const store = new FileRunStore({ directory });
    await expect(store.acquireLease('r1', 1_000)).resolves.toMatchObject({ runId: 'r1' });
    expect(existsSync(join(directory, 'r-r1.lock'))).toBe(false);
  });

  it('breaks a lease lock that stayed unchanged for staleLockMs', async () => {
    const scheduler = new VirtualTimeScheduler();
    const directory = await freshDirectory();
    await writeFile(join(directory, 'r-r1.lock'), JSON.stringify({ pid: 1, host: 'another-host', token: 'stuck' }));
    const store = new FileRunStore({ directory, scheduler, staleLockMs: 20 });
    let lease: unknown;
    const acquired = store.acquireLease('r1', 1_000).then((taken) => (lease = taken));
    // The store waits for the lock on its (virtual) clock: move it on until the lock is broken.
    for (let step = 0; step < 5_000 && lease === undefined; step++) {
      await new Promise((next) => setTimeout(next, 2));
      scheduler.flush();
    }
    await acquired;
    expect(lease).toMatchObject({ runId: 'r1' });
    expect(scheduler.now()).toBeGreaterThanOrEqual(20);
  }, 60_000);

  it('leaves no lock when a process fails between creating its lock and writing it: the next acquireLease takes the lease at once', async () => {
    const directory = await freshDirectory();
    // Under a zero file size limit every write fails (EFBIG), as on a full disk: the lock's text cannot be written.
    const limited = racer(directory, 1, 'ulimit -f 0');
    await limited.ready;
    limited.go();
    expect(await limited.results).toEqual(['RUN_STORE_FAILED']);
    limited.end();
    await limited.exited;
    expect(await readdir(directory)).toEqual([]);
    // On a clock that never moves: a lock left behind would be waited for forever.
    const store = new FileRunStore({ directory, scheduler: new VirtualTimeScheduler() });
    await expect(store.acquireLease('race-0', 60_000)).resolves.toMatchObject({ runId: 'race-0', epoch: 1 });
  }, 60_000);

  it('removes the temporary files an exited process left beside a lock, and keeps a live one\'s', async () => {
    const directory = await freshDirectory();
    const exited = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    const hostTag = createHash('sha256').update(hostname()).digest('hex').slice(0, 12);
    // What a process killed after writing its lock's text aside, before linking it, leaves: that file, and no lock.
    const left = `r-r1.lock.${hostTag}-${Number(exited.stdout)}-${randomUUID()}.tmp`;
    const live = `r-r2.lock.${hostTag}-${process.pid}-${randomUUID()}.tmp`;
    await writeFile(join(directory, left), '');
    await writeFile(join(directory, live), '');
    const store = new FileRunStore({ directory, scheduler: new VirtualTimeScheduler() });
    await expect(store.acquireLease('r1', 60_000)).resolves.toMatchObject({ runId: 'r1', epoch: 1 });
    expect((await readdir(directory)).sort()).toEqual(['r-r1.jsonl', 'r-r1.lease', live]);
  });

  it('takes a lease whose holder exited at once, with a higher epoch', async () => {
    const directory = await freshDirectory();
    const holder = racer(directory, 1);
    await holder.ready;
    holder.go();
    expect(await holder.results).toEqual(['leased']);
    const store = new FileRunStore({ directory, scheduler: new VirtualTimeScheduler() });
    await expect(store.acquireLease('race-0', 60_000)).rejects.toMatchObject({ code: 'RUN_LEASED', holder: { pid: holder.pid, host: hostname() } });
    holder.end();
    await holder.exited;
    // Its 60 s lease has not lapsed on this clock, but no process holds it any more.
    await expect(store.acquireLease('race-0', 60_000)).resolves.toMatchObject({ runId: 'race-0', epoch: 2 });
  }, 60_000);

  it('names the holding process, its host and when its lease lapses when it refuses a lease', async () => {
    const scheduler = new VirtualTimeScheduler();
    const directory = await freshDirectory();
    const holder = new FileRunStore({ directory, scheduler });
    const lease = await holder.acquireLease('r1', 27_000, { owner: 'registry-a' });
    const refused = (await new FileRunStore({ directory, scheduler }).acquireLease('r1', 27_000).catch((error: unknown) => error)) as RunLeasedError;
    expect(refused).toBeInstanceOf(RunLeasedError);
    expect(refused).toMatchObject({ expiresAt: lease.expiresAt, lapsesInMs: 27_000, holder: { pid: process.pid, host: hostname(), owner: 'registry-a' } });
    expect(refused.message).toBe(`Run "r1" is leased by process ${process.pid} on host ${hostname()} (owner registry-a) until ${new Date(lease.expiresAt).toISOString()} (in 27 s)`);
  });

  it('never reads or writes through a symlinked run file (journal, lease, lock, expire time): it refuses it with a RunStoreError naming it and leaves its target untouched', async () => {
    const directory = await freshDirectory();
    const outside = join(await freshDirectory(), 'precious.txt');
    await writeFile(outside, 'not a journal, and no newline at its end');
    const [journal, lease, lock, expire] = ['r-r1.jsonl', 'r-r2.lease', 'r-r3.lock', 'r-r4.expire'].map((name) => join(directory, name)) as [string, string, string, string];
    for (const link of [journal, lease, lock, expire]) await symlink(outside, link);
    const store = new FileRunStore({ directory });
    const refusal = (attempt: Promise<unknown>) => attempt.then(() => undefined, (error: unknown) => error);
    const refusals: [unknown, string][] = [
      [await refusal(store.append('r1', [start('r1')])), journal],
      [await refusal(readAll(store, 'r1')), journal],
      [await refusal(store.summary('r1')), journal],
      [await refusal(store.acquireLease('r2', 1_000)), lease],
      [await refusal(store.append('r2', [start('r2')], { runId: 'r2', token: 'guess', epoch: 1, expiresAt: Infinity })), lease],
      [await refusal(store.acquireLease('r3', 1_000)), lock],
      [await refusal(store.append('r4', [start('r4')])), expire],
    ];
    for (const [error, file] of refusals) {
      expect(error).toBeInstanceOf(RunStoreError);
      expect((error as Error).message).toContain(`the run file ${file} is a symbolic link`);
    }
    expect(await readFile(outside, 'utf8')).toBe('not a journal, and no newline at its end');
    for (const link of [journal, lease, lock, expire]) expect((await lstat(link)).isSymbolicLink()).toBe(true);
  });

  it('is not reachable from the main entry of @rxagents/core, which browsers bundle', () => {
    const seen = new Set<string>();
    const nodeImports: string[] = [];
    const visit = (file: string): void => {
      if (seen.has(file)) return;
      seen.add(file);
      for (const [, specifier] of readFileSync(file, 'utf8').matchAll(/(?:from|import)\s+'([^']+)'/g)) {
        if (specifier?.startsWith('node:')) nodeImports.push(`${file}: ${specifier}`);
        else if (specifier?.startsWith('.')) visit(resolve(dirname(file), `${specifier}.ts`).replace(/\/\.ts$/, '/index.ts'));
      }
    };
    visit(join(__dirname, '../src/index.ts'));
    expect(seen.size).toBeGreaterThan(20);
    expect([...seen].filter((file) => /FileRunStore|store\/file\//.test(file))).toEqual([]);
    expect(nodeImports).toEqual([]);
  });

  it('reads a 100,000-record journal back in order', async () => {
    const directory = await freshDirectory();
    const store = new FileRunStore({ directory });
    for (let batch = 0; batch < 100; batch++) {
      const events: RunEvent[] = Array.from({ length: 1_000 }, (_, index) => delta('big', String(batch * 1_000 + index)));
      if (batch === 0) events[0] = start('big');
      await store.append('big', events);
    }
    let count = 0;
    let ordered = true;
    for await (const record of store.read('big')) {
      if (record.seq !== count || (count > 0 && record.event.type === 'text-delta' && record.event.delta !== String(count))) ordered = false;
      count += 1;
    }
    expect({ count, ordered }).toEqual({ count: 100_000, ordered: true });
    expect(await store.summary('big')).toMatchObject({ records: 100_000 });
    expect((await readAll(store, 'big', 99_998)).map((record) => record.seq)).toEqual([99_998, 99_999]);
  }, 120_000);

  it('keeps every run id inside its directory, under a name of its own', async () => {
    const parent = await freshDirectory();
    const directory = join(parent, 'runs');
    const store = new FileRunStore({ directory });
    const ids = ['../etc', 'a/b', '__proto__', 'x'.repeat(300), '..', 'CON', 'Run1', 'run1', 'é\u0000/\\'];
    for (const runId of ids) {
      await store.append(runId, [start(runId)]);
      await store.releaseLease(await store.acquireLease(runId, 1_000));
    }
    expect(await readdir(parent)).toEqual(['runs']);
    const names = await readdir(directory);
    // A journal and a lease file (kept after the release: it holds the run's last epoch) per run.
    expect(names).toHaveLength(ids.length * 2);
    for (const name of names) expect(name).toMatch(/^[rh]-[a-z0-9_-]+\.(jsonl|lease)$/);
    for (const runId of ids) expect((await readAll(store, runId)).map((record) => record.event)).toEqual([start(runId)]);
    expect((await store.list()).map((summary) => summary.runId).sort()).toEqual([...ids].sort());
  });

  it('deletes an expired run when it lists runs', async () => {
    const scheduler = new VirtualTimeScheduler();
    const directory = await freshDirectory();
    const store = new FileRunStore({ directory, scheduler });
    await store.append('kept', [start('kept')]);
    await store.append('gone', [start('gone')]);
    await store.expire('gone', 10);
    scheduler.schedule(() => undefined, 20);
    scheduler.flush();
    expect((await store.list()).map((summary) => summary.runId)).toEqual(['kept']);
    expect((await readdir(directory)).sort()).toEqual(['r-kept.jsonl']);
  });
});

/** A lease racer process (see `support/fileLeaseRacer.ts`), started after the shell commands `limits` (a `ulimit`) when given. */
function racer(directory: string, runs: number, limits?: string) {
  const script = join(__dirname, 'support', 'fileLeaseRacer.ts');
  const command = limits === undefined ? [process.execPath, '--import', 'tsx', script] : ['bash', '-c', `${limits} && exec "${process.execPath}" --import tsx "${script}"`];
  const child = spawn(command[0] as string, command.slice(1), {
    cwd: join(__dirname, '../../..'),
    env: { ...process.env, DIRECTORY: directory, RUNS: String(runs) },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  let output = '';
  const lines: ((line: string) => void)[] = [];
  child.stdout.on('data', (data: Buffer) => {
    output += data.toString();
    let newline = output.indexOf('\n');
    while (newline !== -1) {
      lines.shift()?.(output.slice(0, newline));
      output = output.slice(newline + 1);
      newline = output.indexOf('\n');
    }
  });
  const nextLine = () => new Promise<string>((resolve) => lines.push(resolve));
  const ready = nextLine();
  const results = ready.then(nextLine).then((line) => JSON.parse(line) as string[]);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return { pid: child.pid as number, ready, results, exited, go: () => child.stdin.write('go\n'), end: () => child.stdin.end() };
}
