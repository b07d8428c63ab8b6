import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunLease } from '@rxagents/core';
import { FileRunStore } from '@rxagents/core/file-store';
import { createRunRegistry } from '@rxagents/web';
import { nextInterrupt } from './helpers/answers';
import { eventually, rootEnd, tripRuns } from './helpers/stall';

/** A file store whose leases are never given back: its registry stops as a process on a lost host would, its leases left held. */
class NeverReleases extends FileRunStore {
  override async releaseLease(_lease: RunLease): Promise<void> {}
}

jest.setTimeout(20_000);

describe('a durable run registry under a stable leaseOwner', () => {
  let directory: string;
  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), 'rxagents-owner-'));
  });
  afterEach(() => rmSync(directory, { recursive: true, force: true }));

  it("started again under its owner takes back at once the runs its lost process held, and takes their answers; another owner waits for the lease", async () => {
    const first = createRunRegistry({ store: new NeverReleases({ directory }), runs: tripRuns().runs, leaseOwner: 'web-1' });
    const { runId } = first.start('trip', 'Lisbon');
    const asked = await nextInterrupt(runId);
    const store = new FileRunStore({ directory });
    await eventually(async () => (await first.pending(runId)).length === 1);
    // The host is lost: the registry stops, its lease (30 s by default) still held.
    first.close();

    const stranger = createRunRegistry({ store, runs: tripRuns().runs, leaseOwner: 'web-2' });
    expect(await stranger.resumeAll()).toEqual([]);
    const refused = await stranger.handleAnswer(runId, new Request(`http://localhost/runs/${runId}/answers`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ interruptId: asked.interruptId, answer: 4 }) }));
    expect(refused.status).toBe(409);
    // The page is told when to try again: the lost process's lease lapses within the default 30 s.
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(30);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toMatch(/its lease lapses in \d+ s/);
    stranger.close();

    const again = createRunRegistry({ store, runs: tripRuns().runs, leaseOwner: 'web-1' });
    try {
      expect(await again.resumeAll()).toEqual([runId]);
      await eventually(async () => (await again.pending(runId)).some((open) => open.interruptId === asked.interruptId));
      await again.answer(runId, asked.interruptId, 4);
      await eventually(async () => (await store.summary(runId))?.status !== 'running');
      expect(await rootEnd(store, runId)).toMatchObject({ success: true, output: '4 days in Lisbon' });
    } finally {
      again.close();
    }
  });

  it('refuses a blank or control-character owner with a ConfigError naming leaseOwner', () => {
    for (const leaseOwner of ['', '  ', 'web\n1']) {
      expect(() => createRunRegistry({ store: new FileRunStore({ directory }), leaseOwner })).toThrow(expect.objectContaining({ name: 'ConfigError', message: expect.stringContaining('leaseOwner') }));
    }
  });
});
