import { join, resolve } from 'node:path';
import { startWebDemo, type WebDemo } from '../examples/web/server';

// The web demo serves the run inspector on its own registry at /inspector/: its debates (held in memory
// only) and its durable runs are listed, and shown from the registry as they happen.

jest.setTimeout(60_000);

describe('the web demo with the run inspector', () => {
  let demo: WebDemo;

  beforeAll(async () => {
    demo = await startWebDemo({ webDir: join(resolve(__dirname, '..'), 'examples', 'web') });
  });
  afterAll(async () => {
    await demo?.close();
  });

  it('lists a debate the page started, and serves its events', async () => {
    const started = await fetch(`${demo.url}api/runs`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ scene: 'debate', wordMs: 1 }) });
    const { runId } = (await started.json()) as { runId: string };
    expect((await fetch(`${demo.url}inspector/`)).headers.get('content-type')).toBe('text/html; charset=utf-8');
    const listed = (await (await fetch(`${demo.url}inspector/api/runs`)).json()) as { runs: { runId: string; name: string }[] };
    expect(listed.runs).toEqual(expect.arrayContaining([expect.objectContaining({ runId })]));
    const events = await (await fetch(`${demo.url}inspector/api/runs/${runId}/events`)).text();
    expect(events).toContain('"type":"run-start"');
    expect(events).toContain('"type":"run-end"');
  });
});
