import { concat, lastValueFrom, NEVER, of, Subject, tap, toArray } from 'rxjs';
import { defineAgent, invoke$, runView, traceRun, type RunEvent, type RunView } from '@rxagents/core';
import { createRunRegistry, toEventStreamResponse, RemoteRunError } from '@rxagents/web';
import { fromEventStream } from '@rxagents/web/client';

const writer = defineAgent('writer', () => concat(of('Hel', 'lo'), NEVER));
const running = (view: RunView) => view.nodes.filter((node) => node.status === 'running').map((node) => node.name);

async function until(check: () => boolean): Promise<void> {
  for (let turn = 0; turn < 500 && !check(); turn++) await new Promise((resolve) => setTimeout(resolve, 5));
  expect(check()).toBe(true);
}

describe('a cancelled run, as its viewers see it', () => {
  it('a runView built from the SSE of a cancelled registry run shows no running node, and the run cancelled', async () => {
    const registry = createRunRegistry();
    const { runId } = registry.start('story', 'go', (run) => traceRun(run, 'inner', 'go', (inner) => invoke$(writer, 'go', { run: inner })));
    const views: RunView[] = [];
    const watched = lastValueFrom(runView(fromEventStream(registry.response(runId, new Request('http://x/runs')))).pipe(tap((view) => views.push(view)), toArray()));
    await until(() => views.at(-1)?.nodes.some((node) => node.text === 'Hello') === true);

    expect(registry.cancel(runId)).toBe(true);
    await watched;
    const last = views.at(-1) as RunView;
    expect(running(last)).toEqual([]);
    expect(last.status).toBe('cancelled');
    expect(last.nodes.map((node) => [node.name, node.status, node.error?.name])).toEqual([
      ['story', 'cancelled', 'AbortError'],
      ['inner', 'cancelled', 'AbortError'],
      ['writer', 'cancelled', 'AbortError'],
    ]);

    // A viewer that comes later sees the same end.
    const late = await lastValueFrom(runView(fromEventStream(registry.response(runId, new Request('http://x/runs')))));
    expect(running(late)).toEqual([]);
    expect(late.status).toBe('cancelled');
    registry.close();
  });

  it('fromEventStream ends the open nodes with the server\'s error when an error frame cuts the run off', async () => {
    const events$ = new Subject<RunEvent>();
    const base = { runId: 'r', at: 1 } as const;
    const seen: RunEvent[] = [];
    const views: RunView[] = [];
    const response = toEventStreamResponse(events$);
    const done = lastValueFrom(runView(fromEventStream(response).pipe(tap((event) => seen.push(event))))
      .pipe(tap((view) => views.push(view)), toArray()));
    events$.next({ type: 'run-start', ...base, callId: 'root', parentCallId: null, name: 'story', input: 'go' });
    events$.next({ type: 'call-start', ...base, callId: 'c1', parentCallId: 'root', agentId: 'writer', input: 'go' });
    events$.next({ type: 'text-delta', ...base, callId: 'c1', parentCallId: 'root', at: 3, agentId: 'writer', delta: 'Hel' });
    await until(() => seen.length === 3);
    // The server sends what `redactError` keeps of its error: the name and a generic message.
    const error = new Error('lost the model');
    error.name = 'AbortError';
    events$.error(error);

    await expect(done).rejects.toBeInstanceOf(RemoteRunError);
    expect(seen.slice(3)).toEqual([
      { type: 'call-error', runId: 'r', callId: 'c1', parentCallId: 'root', at: 3, agentId: 'writer', error: { name: 'AbortError', message: 'The operation was cancelled' }, durationMs: 2 },
      { type: 'run-end', runId: 'r', callId: 'root', parentCallId: null, at: 3, success: false, error: { name: 'AbortError', message: 'The operation was cancelled' }, durationMs: 2 },
    ]);
    expect(running(views.at(-1) as RunView)).toEqual([]);
    expect(views.at(-1)?.status).toBe('cancelled');
  });
});
