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

    it('gives each lease of a run a higher epoch than the last, across releases and lapses; renewing keeps it', async () => {
      const { store, advance } = subject;
      const first = await store.acquireLease('r1', leaseTtlMs);
      expect(Number.isInteger(first.epoch) && first.epoch > 0).toBe(true);
      const renewed = await store.renewLease(first, leaseTtlMs);
      expect(renewed.epoch).toBe(first.epoch);
      await store.releaseLease(renewed);
      const second = await store.acquireLease('r1', leaseTtlMs);
      expect(second.epoch).toBeGreaterThan(first.epoch);
      await advance(leaseTtlMs + 50);
      const third = await store.acquireLease('r1', leaseTtlMs);
      expect(third.epoch).toBeGreaterThan(second.epoch);
      expect((await store.acquireLease('r2', leaseTtlMs)).epoch).toBeGreaterThan(0);
      await store.delete('r1');
      expect((await store.acquireLease('r1', leaseTtlMs)).epoch).toBeGreaterThan(0);
    });

    it('renews late, and appends under, a lease that lapsed while nobody took it', async () => {
      const { store, advance } = subject;
      await store.append('r1', [start('r1')]);
      const lease = await store.acquireLease('r1', leaseTtlMs);
      // The holder's event loop was blocked past its lease: nobody took the run meanwhile, so it goes on.
      await advance(leaseTtlMs + 50);
      await store.append('r1', [delta('r1', 'late')], lease);
      const renewed = await store.renewLease(lease, leaseTtlMs);
      expect(renewed).toMatchObject({ runId: 'r1', token: lease.token, epoch: lease.epoch });
      expect(renewed.expiresAt).toBeGreaterThan(lease.expiresAt);
      await expect(store.acquireLease('r1', leaseTtlMs)).rejects.toBeInstanceOf(RunLeasedError);
      expect((await readAll(store, 'r1')).map((record) => record.event)).toEqual([start('r1'), delta('r1', 'late')]);
    });

    it('loses a lease that was released or whose run was deleted', async () => {
      const { store } = subject;
      await store.append('r1', [start('r1')]);
      const released = await store.acquireLease('r1', leaseTtlMs);
      await store.releaseLease(released);
      await expect(store.renewLease(released, leaseTtlMs)).rejects.toBeInstanceOf(RunLeaseLostError);
      await expect(store.append('r1', [delta('r1', 'x')], released)).rejects.toBeInstanceOf(RunLeaseLostError);
      const deleted = await store.acquireLease('r1', leaseTtlMs);
      await store.delete('r1');
      await expect(store.renewLease(deleted, leaseTtlMs)).rejects.toBeInstanceOf(RunLeaseLostError);
    });

    it('says who holds a lease and when it lapses when it refuses one', async () => {
      const { store } = subject;
      const held = await store.acquireLease('r1', leaseTtlMs, { owner: 'registry-a' });
      const refused = await store.acquireLease('r1', leaseTtlMs).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(RunLeasedError);
      const error = refused as RunLeasedError;
      expect(error).toMatchObject({ runId: 'r1', expiresAt: held.expiresAt, holder: expect.objectContaining({ owner: 'registry-a' }) });
      expect(error.lapsesInMs).toBeGreaterThan(0);
      expect(error.lapsesInMs).toBeLessThanOrEqual(leaseTtlMs);
      expect(error.message).toContain('(owner registry-a) until ');
      expect(error.message).toContain(new Date(held.expiresAt).toISOString());
    });

    it('gives a lease held under an owner to that owner at once, with a higher epoch, and fences the old holder out', async () => {
      const { store } = subject;
      await store.append('r1', [start('r1')]);
      const before = await store.acquireLease('r1', leaseTtlMs, { owner: 'registry-a' });
      await expect(store.acquireLease('r1', leaseTtlMs, { owner: 'registry-b' })).rejects.toBeInstanceOf(RunLeasedError);
      await expect(store.acquireLease('r1', leaseTtlMs)).rejects.toBeInstanceOf(RunLeasedError);
      // The registry restarted under the same owner: it takes its run back without waiting for the lease to lapse.
      const after = await store.acquireLease('r1', leaseTtlMs, { owner: 'registry-a' });
      expect(after.epoch).toBeGreaterThan(before.epoch);
      await expect(store.append('r1', [delta('r1', 'old')], before)).rejects.toBeInstanceOf(RunLeaseLostError);
      await expect(store.renewLease(before, leaseTtlMs)).rejects.toBeInstanceOf(RunLeaseLostError);
      await store.append('r1', [delta('r1', 'new')], after);
      expect((await readAll(store, 'r1')).map((record) => record.event)).toEqual([start('r1'), delta('r1', 'new')]);
    });

    it('refuses a lease owner that is blank, too long or not a string, and an unknown option, with a ConfigError', async () => {
      const { store } = subject;
      for (const options of [{ owner: ' ' }, { owner: 'x'.repeat(201) }, { owner: 'a\nb' }, { owner: 7 }, { holder: 'a' }]) {
        await expect(store.acquireLease('r1', leaseTtlMs, options as never)).rejects.toBeInstanceOf(ConfigError);
      }
      await expect(store.acquireLease('r1', leaseTtlMs, { owner: 'x'.repeat(200) })).resolves.toMatchObject({ runId: 'r1' });
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
