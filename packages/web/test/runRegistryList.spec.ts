import { NEVER, Subject, throwError } from 'rxjs';
import { defineAgent, invoke$, MemoryRunStore, type RunEvent } from '@rxagents/core';
import { createRunRegistry } from '@rxagents/web';

// `list()`: the runs a registry holds, as a run store summarizes them; a durable registry's are its store's.

const start = (runId: string, name: string): RunEvent => ({ type: 'run-start', runId, callId: 'run', parentCallId: null, at: 0, name, input: 'go' });

describe('RunRegistry.list', () => {
  it('says each run held: its name, running until its root ends, how many events, when it started and changed', () => {
    const registry = createRunRegistry({ ttlMs: 60_000 });
    const words = new Subject<string>();
    const writer = defineAgent('writer', () => words);
    const { runId: story } = registry.start('story', 'go', (run) => invoke$(writer, 'go', { run }));
    const { runId: refund } = registry.start('refund', 'go', (run) => throwError(() => new Error(`refused in ${run.runId}`)));
    const times = { createdAt: expect.any(Number), updatedAt: expect.any(Number) };
    expect(registry.list()).toEqual([
      { runId: story, name: 'story', status: 'running', records: 2, ...times },
      { runId: refund, name: 'refund', status: 'failed', records: 2, ...times },
    ]);
    words.next('Once');
    words.complete();
    expect(registry.list({ status: 'succeeded' }).map((summary) => [summary.runId, summary.records])).toEqual([[story, 5]]);
    expect(registry.list({ status: 'running' })).toEqual([]);
    for (const summary of registry.list()) expect(summary.updatedAt).toBeGreaterThanOrEqual(summary.createdAt);
    registry.close();
    expect(registry.list()).toEqual([]);
  });

  it('says a cancelled run failed, and a run given as events under the name its events give, nameless before', () => {
    const registry = createRunRegistry();
    const events = new Subject<RunEvent>();
    const { runId: given } = registry.start(events);
    const { runId: hanging } = registry.start('hanging', 'go', () => NEVER);
    expect(registry.list().map((summary) => [summary.runId, summary.name, summary.status])).toEqual([
      [given, '', 'running'],
      [hanging, 'hanging', 'running'],
    ]);
    events.next(start('any', 'debate'));
    registry.cancel(hanging);
    expect(registry.list().map((summary) => [summary.name, summary.status])).toEqual([
      ['debate', 'running'],
      ['hanging', 'failed'],
    ]);
    registry.close();
  });
});

describe('DurableRunRegistry.list', () => {
  it("lists the store's runs, whoever runs them, then the runs held in memory only", async () => {
    const store = new MemoryRunStore();
    await store.append('elsewhere', [start('elsewhere', 'import')]);
    const registry = createRunRegistry({ store });
    const { runId: inMemory } = registry.start(NEVER);
    const listed = await registry.list();
    expect(listed.map((summary) => [summary.runId, summary.name, summary.status])).toEqual([
      ['elsewhere', 'import', 'running'],
      [inMemory, '', 'running'],
    ]);
    expect(await registry.list({ status: 'failed' })).toEqual([]);
    registry.close();
  });
});
