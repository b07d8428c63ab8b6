import { Subject } from 'rxjs';
import { ConfigError, defineAgent, invoke$, MemoryRunStore, type RunEvent } from '@rxagents/core';
import { createRunRegistry } from '@rxagents/web';
import { inspectorHandler, type InspectorHandler } from '@rxagents/inspector';

jest.setTimeout(30_000);

const start = (runId: string, name: string, at: number): RunEvent => ({ type: 'run-start', runId, callId: 'run', parentCallId: null, at, name, input: 'go' });
const end = (runId: string, at: number, success: boolean): RunEvent =>
  success
    ? { type: 'run-end', runId, callId: 'run', parentCallId: null, at, success, durationMs: at, output: 'done' }
    : { type: 'run-end', runId, callId: 'run', parentCallId: null, at, success, durationMs: at, error: { name: 'Error', message: 'The card processor refused the refund' } };
const get = (handler: InspectorHandler, path: string, init?: RequestInit) => handler(new Request(`http://localhost${path}`, init));
const dataOf = (text: string): unknown[] =>
  text
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice(6)) as unknown);

describe('inspectorHandler', () => {
  const store = new MemoryRunStore();
  let handler: InspectorHandler;

  beforeAll(async () => {
    await store.append('older', [start('older', 'story', 1), end('older', 5, true)]);
    await store.append('newer', [start('newer', 'refund', 2), end('newer', 9, false)]);
    await store.append('going', [start('going', 'debate', 3)]);
    handler = await inspectorHandler({ store, pollMs: 20 });
  });
  afterAll(() => handler.close());

  it('serves the page and its bundled script', async () => {
    const page = await get(handler, '/');
    expect([page.status, page.headers.get('content-type')]).toEqual([200, 'text/html; charset=utf-8']);
    expect(await page.text()).toContain('<script type="module" src="inspector.js">');
    const script = await get(handler, '/inspector.js');
    expect([script.status, script.headers.get('content-type')]).toEqual([200, 'text/javascript; charset=utf-8']);
    expect((await script.text()).length).toBeGreaterThan(1000);
  });

  it("lists the store's runs, running and finished, newest first, and filters them by status", async () => {
    const all = (await (await get(handler, '/api/runs')).json()) as { runs: { runId: string; status: string }[] };
    expect(all.runs.map((run) => [run.runId, run.status])).toEqual([
      ['going', 'running'],
      ['newer', 'failed'],
      ['older', 'succeeded'],
    ]);
    const failed = (await (await get(handler, '/api/runs?status=failed')).json()) as { runs: { runId: string }[] };
    expect(failed.runs.map((run) => run.runId)).toEqual(['newer']);
  });

  it('refuses a query it does not know, another method, another path and a run id that is none', async () => {
    expect((await get(handler, '/api/runs?status=lost')).status).toBe(400);
    expect((await get(handler, '/api/runs?order=name')).status).toBe(400);
    expect((await get(handler, '/api/runs?status=failed&status=running')).status).toBe(400);
    expect((await get(handler, '/api/runs?__proto__=x')).status).toBe(400);
    expect((await get(handler, '/api/runs', { method: 'POST' })).status).toBe(405);
    expect((await get(handler, '/api/elsewhere')).status).toBe(404);
    expect((await get(handler, `/api/runs/${'x'.repeat(300)}/events`)).status).toBe(400);
    expect((await get(handler, '/api/runs/%E0%A4%A/events')).status).toBe(400);
    expect((await get(handler, '/api/runs/unknown/events')).status).toBe(404);
  });

  it("serves a finished run's journal as Server-Sent Events, its error redacted by default", async () => {
    const response = await get(handler, '/api/runs/newer/events');
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const events = dataOf(await response.text()) as RunEvent[];
    expect(events.map((event) => event.type)).toEqual(['run-start', 'run-end']);
    expect(events[1]).toMatchObject({ error: { name: 'Error', message: 'An error occurred on the server' } });
  });

  it('serves a running run that no registry here runs live from its journal, read again while it grows', async () => {
    const response = await get(handler, '/api/runs/going/events');
    const reading = response.text();
    await store.append('going', [end('going', 12, true)]);
    const events = dataOf(await reading) as RunEvent[];
    expect(events.map((event) => event.type)).toEqual(['run-start', 'run-end']);
  });

  it('mounts under basePath', async () => {
    const mounted = await inspectorHandler({ store, basePath: '/ops/inspector/' });
    try {
      expect((await get(mounted, '/ops/inspector/')).status).toBe(200);
      expect((await get(mounted, '/ops/inspector/api/runs')).status).toBe(200);
      expect((await get(mounted, '/api/runs')).status).toBe(404);
    } finally {
      mounted.close();
    }
  });

  it('refuses bad options with a ConfigError naming the field', async () => {
    await expect(inspectorHandler({ store: {} as MemoryRunStore })).rejects.toThrow(ConfigError);
    await expect(inspectorHandler({})).rejects.toThrow(/store.*must name a store or a registry/);
    await expect(inspectorHandler({ store, basePath: 'inspector' })).rejects.toThrow(/basePath/);
    await expect(inspectorHandler({ store, pollMs: -1 })).rejects.toThrow(/pollMs/);
  });
});

describe('inspectorHandler with a registry', () => {
  it("serves a run the registry runs here from the registry's memory, as it happens", async () => {
    const store = new MemoryRunStore();
    const words = new Subject<string>();
    const writer = defineAgent('writer', () => words);
    const registry = createRunRegistry({ store });
    const handler = await inspectorHandler({ store, registry });
    try {
      const { runId } = registry.start('story', 'go', (run) => invoke$(writer, 'go', { run }));
      // Listed once the registry journaled its start (the store is written asynchronously).
      let listed: { runId: string; status: string }[] = [];
      for (let attempt = 0; attempt < 200 && listed.length === 0; attempt++) {
        listed = ((await (await get(handler, '/api/runs')).json()) as { runs: typeof listed }).runs;
        if (listed.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
      }
      expect(listed).toEqual([expect.objectContaining({ runId, status: 'running' })]);
      const reading = (await get(handler, `/api/runs/${runId}/events`)).text();
      words.next('Once ');
      words.complete();
      const events = dataOf(await reading) as RunEvent[];
      expect(events.filter((event) => event.type === 'text-delta').map((event) => (event.type === 'text-delta' ? event.delta : ''))).toEqual(['Once ']);
      expect(events.at(-1)?.type).toBe('run-end');
    } finally {
      handler.close();
      registry.close();
    }
  });

  it("lists and serves a memory registry's runs without a store, the runs given as events too", async () => {
    const registry = createRunRegistry();
    const handler = await inspectorHandler({ registry });
    try {
      const words = new Subject<string>();
      const { runId } = registry.start('story', 'go', (run) => invoke$(defineAgent('writer', () => words), 'go', { run }));
      const { runId: given } = registry.start(new Subject<RunEvent>());
      const listed = (await (await get(handler, '/api/runs')).json()) as { runs: { runId: string; name: string; status: string }[] };
      expect(listed.runs.map((run) => [run.runId, run.name, run.status])).toEqual([
        [given, '', 'running'],
        [runId, 'story', 'running'],
      ]);
      words.complete();
      const done = (await (await get(handler, '/api/runs?status=succeeded')).json()) as { runs: { runId: string }[] };
      expect(done.runs.map((run) => run.runId)).toEqual([runId]);
      expect(dataOf(await (await get(handler, `/api/runs/${runId}/events`)).text()).at(-1)).toMatchObject({ type: 'run-end', success: true });
      expect((await get(handler, '/api/runs/unknown/events')).status).toBe(404);
    } finally {
      handler.close();
      registry.close();
    }
  });

  it('falls back to the store for a run the registry does not know', async () => {
    const store = new MemoryRunStore();
    await store.append('journaled', [start('journaled', 'story', 1), end('journaled', 2, true)]);
    const handler = await inspectorHandler({ store, registry: createRunRegistry() });
    try {
      expect(dataOf(await (await get(handler, '/api/runs/journaled/events')).text())).toHaveLength(2);
    } finally {
      handler.close();
    }
  });
});

