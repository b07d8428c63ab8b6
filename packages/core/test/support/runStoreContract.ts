import { ConfigError, RunLeasedError, RunLeaseLostError, type RunEvent, type RunRecord, type RunStore } from '../../src';

/**
 * The contract every run store keeps, as one suite: `describeRunStore('file', async () => ({ store, advance, close }))`.
 * `advance(ms)` moves the store's clock on (virtual time for stores that take a scheduler; a real wait otherwise).
 */
export interface StoreUnderTest {
  readonly store: RunStore;
  readonly advance: (ms: number) => Promise<void>;
  readonly close?: () => Promise<void>;
}

export function start(runId: string, name = 'story'): RunEvent {
  return { type: 'run-start', runId, callId: 'run', parentCallId: null, at: 0, name, input: 'go' };
}

export function delta(runId: string, text: string): RunEvent {
  return { type: 'text-delta', runId, callId: 'run/0', parentCallId: 'run', at: 1, agentId: 'writer', delta: text };
}

export function end(runId: string, success = true): RunEvent {
  return { type: 'run-end', runId, callId: 'run', parentCallId: null, at: 2, success, durationMs: 2 };
}

export async function readAll(store: RunStore, runId: string, fromSeq?: number): Promise<RunRecord[]> {
  const records: RunRecord[] = [];
  for await (const record of store.read(runId, fromSeq)) records.push(record);
  return records;
}

export function describeRunStore(kind: string, open: () => Promise<StoreUnderTest>, leaseTtlMs = 1_000): void {
  describe(`${kind} run store contract`, () => {
    let subject: StoreUnderTest;
    beforeEach(async () => {
      subject = await open();
    });
    afterEach(async () => {
      await subject.close?.();
    });

    it('appends records in order and reads them back from any point', async () => {
      const { store } = subject;
      await store.append('r1', [start('r1'), delta('r1', 'Once ')]);
      await store.append('r1', [delta('r1', 'upon'), end('r1')]);
      const all = await readAll(store, 'r1');
      expect(all.map((record) => record.seq)).toEqual([0, 1, 2, 3]);
      expect(all.map((record) => record.event)).toEqual([start('r1'), delta('r1', 'Once '), delta('r1', 'upon'), end('r1')]);
      expect((await readAll(store, 'r1', 2)).map((record) => record.seq)).toEqual([2, 3]);
      expect(await readAll(store, 'r1', 9)).toEqual([]);
    });

    it('reads nothing for a run it does not hold', async () => {
      expect(await readAll(subject.store, 'nobody')).toEqual([]);
      expect(await subject.store.summary('nobody')).toBeUndefined();
    });

    it('refuses a new journal that does not open with the root run-start', async () => {
      await expect(subject.store.append('r1', [delta('r1', 'x')])).rejects.toBeInstanceOf(ConfigError);
      expect(await subject.store.summary('r1')).toBeUndefined();
    });

    it('reads the status from the root run-end and lists runs by status', async () => {
      const { store } = subject;
      await store.append('a', [start('a', 'first')]);
      await store.append('b', [start('b', 'second'), end('b', true)]);
      await store.append('c', [start('c', 'third'), end('c', false)]);
      expect(await store.summary('a')).toMatchObject({ runId: 'a', name: 'first', status: 'running', records: 1 });
      expect((await store.list()).map((summary) => summary.runId).sort()).toEqual(['a', 'b', 'c']);
      expect((await store.list({ status: 'succeeded' })).map((summary) => summary.runId)).toEqual(['b']);
      expect((await store.list({ status: 'failed' })).map((summary) => summary.runId)).toEqual(['c']);
      expect((await store.list({ status: 'running' })).map((summary) => summary.runId)).toEqual(['a']);
    });

    it('gives a lease to one holder at a time, until it is released or lapses', async () => {
      const { store, advance } = subject;
      const first = await store.acquireLease('r1', leaseTtlMs);
      await expect(store.acquireLease('r1', leaseTtlMs)).rejects.toBeInstanceOf(RunLeasedError);
      await store.releaseLease(first);
      const second = await store.acquireLease('r1', leaseTtlMs);
      expect(second.token).not.toBe(first.token);
      await advance(leaseTtlMs + 50);
      const third = await store.acquireLease('r1', leaseTtlMs);
      await expect(store.renewLease(second, leaseTtlMs)).rejects.toBeInstanceOf(RunLeaseLostError);
      const renewed = await store.renewLease(third, leaseTtlMs);
      expect(renewed.token).toBe(third.token);
    });

    it('gives each lease of a run a higher epoch (a positive integer) than every earlier one, across release and lapse, and keeps it on renewal', async () => {
      const { store, advance } = subject;
      const first = await store.acquireLease('r1', leaseTtlMs);
      await store.releaseLease(first);
      const second = await store.acquireLease('r1', leaseTtlMs);
      await advance(leaseTtlMs + 50);
      const third = await store.acquireLease('r1', leaseTtlMs);
      const renewed = await store.renewLease(third, leaseTtlMs);
      expect(Number.isSafeInteger(first.epoch) && first.epoch > 0).toBe(true);
      expect(second.epoch).toBeGreaterThan(first.epoch);
      expect(third.epoch).toBeGreaterThan(second.epoch);
      expect(renewed.epoch).toBe(third.epoch);
    });

    it('refuses an append under a lease that is no longer the run\'s, and writes none of it', async () => {
      const { store, advance } = subject;
      await store.append('r1', [start('r1')]);
      const lost = await store.acquireLease('r1', leaseTtlMs);
      await store.append('r1', [delta('r1', 'a')], lost);
      await advance(leaseTtlMs + 50);
      await store.acquireLease('r1', leaseTtlMs);
      await expect(store.append('r1', [delta('r1', 'b')], lost)).rejects.toBeInstanceOf(RunLeaseLostError);
      expect((await readAll(store, 'r1')).length).toBe(2);
    });

    it('deletes a run now, or after a while', async () => {
      const { store, advance } = subject;
      await store.append('gone', [start('gone')]);
      await store.append('later', [start('later')]);
      await store.delete('gone');
      expect(await store.summary('gone')).toBeUndefined();
      await store.expire('later', 100);
      expect(await store.summary('later')).toBeDefined();
      await advance(1_100);
      expect(await store.summary('later')).toBeUndefined();
      expect(await readAll(store, 'later')).toEqual([]);
    });

    it('refuses a blank run id with a ConfigError naming it', async () => {
      await expect(subject.store.append(' ', [start(' ')])).rejects.toThrow(/runId/);
      await expect(subject.store.summary('')).rejects.toBeInstanceOf(ConfigError);
    });
  });
}
