import { BehaviorSubject, lastValueFrom, NEVER, of, Subject, tap, toArray } from 'rxjs';
import { ConfigError, defineAgent, invoke$, observeRun, OpenRunNodes, runView, takeRunUntil, type RunEvent, type RunView } from '../src';

const waiting = (aborted: { count: number }) =>
  defineAgent('waiting', (_input, { signal }) => {
    signal?.addEventListener('abort', () => aborted.count++);
    return NEVER;
  });

describe('takeRunUntil', () => {
  it('ends every open node, innermost first, as cancelled, then completes; the agents are aborted', async () => {
    const aborted = { count: 0 };
    const agent = waiting(aborted);
    const stop = new Subject<void>();
    const events: RunEvent[] = [];
    const views: RunView[] = [];
    const events$ = observeRun('wait', 'go', (run) => invoke$(agent, 'go', { run })).pipe(takeRunUntil(stop));
    runView(events$.pipe(tap((event) => events.push(event)))).subscribe((view) => views.push(view));
    await Promise.resolve();
    stop.next();

    expect(aborted.count).toBe(1);
    expect(events.map((event) => event.type)).toEqual(['run-start', 'call-start', 'call-error', 'run-end']);
    expect(events.slice(2)).toEqual([
      expect.objectContaining({ type: 'call-error', error: { name: 'AbortError', message: 'The run was cancelled' } }),
      expect.objectContaining({ type: 'run-end', parentCallId: null, success: false, error: { name: 'AbortError', message: 'The run was cancelled' } }),
    ]);
    const last = views.at(-1) as RunView;
    expect(last.status).toBe('cancelled');
    expect(last.nodes.map((node) => node.status)).toEqual(['cancelled', 'cancelled']);
  });

  it('passes a run that ends on its own unchanged, and a later notifier does nothing', async () => {
    const writer = defineAgent('writer', () => of('Hi'));
    const stop = new Subject<void>();
    const events = await lastValueFrom(observeRun('hi', 'go', (run) => invoke$(writer, 'go', { run })).pipe(takeRunUntil(stop), toArray()));
    stop.next();
    expect(events.map((event) => event.type)).toEqual(['run-start', 'call-start', 'text-delta', 'call-end', 'run-end']);
  });

  it('errors with the AbortError when the events never showed their root', async () => {
    const stop = new BehaviorSubject<void>(undefined);
    await expect(lastValueFrom(observeRun('x', 'go', () => NEVER).pipe(takeRunUntil(stop)))).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('refuses a notifier that is not an ObservableInput', () => {
    expect(() => takeRunUntil(42 as never)).toThrow(ConfigError);
  });
});

describe('OpenRunNodes', () => {
  it('ends what is open, children before parents, at the latest time it saw', () => {
    const open = new OpenRunNodes();
    const base = { runId: 'r' } as const;
    open.track({ type: 'run-start', ...base, callId: 'root', parentCallId: null, at: 1, name: 'n', input: '' });
    open.track({ type: 'call-start', ...base, callId: 'a', parentCallId: 'root', at: 2, agentId: 'x', input: '' });
    open.track({ type: 'call-start', ...base, callId: 'b', parentCallId: 'root', at: 3, agentId: 'y', input: '' });
    open.track({ type: 'call-end', ...base, callId: 'a', parentCallId: 'root', at: 4, agentId: 'x', durationMs: 2 });
    open.track({ type: 'text-delta', ...base, callId: 'b', parentCallId: 'root', at: 9, agentId: 'y', delta: 'z' });
    const ends = open.end({ name: 'Error', message: 'gone' });
    expect(ends).toEqual([
      { type: 'call-error', ...base, callId: 'b', parentCallId: 'root', at: 9, agentId: 'y', error: { name: 'Error', message: 'gone' }, durationMs: 6 },
      { type: 'run-end', ...base, callId: 'root', parentCallId: null, at: 9, success: false, error: { name: 'Error', message: 'gone' }, durationMs: 8 },
    ]);
    expect(open.size).toBe(0);
  });
});
