import { concatMap, map, timer } from 'rxjs';
import {
  CallInterruptedError,
  defineAgent,
  emptyRunView,
  invoke$,
  MemoryRunStore,
  observeRun,
  reduceRunView,
  serializeError,
  withoutSupersededAttempts,
  type RunContext,
  type RunEvent,
  type RunNode,
} from '@rxagents/core';
import { type CallCounts, countingAgent, cutJournal, drive, journalOf, virtualTime } from './support/durable';

const RUN_ID = 'run-attempts';

/** An outer agent that calls an inner one and then works 10 ms more: a crash after the inner call ended cuts the outer one off. */
function nested(scheduler: ReturnType<typeof virtualTime>, counts: CallCounts) {
  const inner = countingAgent('inner', scheduler, counts);
  const outer = defineAgent('outer', (input, { run }) => invoke$(inner, input, { run }).pipe(concatMap((text) => timer(10, scheduler).pipe(map(() => `outer[${text}]`)))));
  return (run: RunContext) => invoke$(outer, 'go', { run });
}

/** The events a resumed run gives its reader when the first process stopped after the inner call ended. */
async function resumedEvents(): Promise<RunEvent[]> {
  const scheduler = virtualTime();
  const store = new MemoryRunStore({ scheduler });
  await drive(scheduler, observeRun('nested', 'go', nested(scheduler, new Map()), { store, runId: RUN_ID, scheduler }));
  const journal = await journalOf(store, RUN_ID);
  const resumedScheduler = virtualTime();
  const innerEnd = journal.findIndex((event) => event.type === 'call-end' && event.agentId === 'inner') + 1;
  const cut = await cutJournal(journal, innerEnd, RUN_ID, resumedScheduler);
  const resumed = await drive(resumedScheduler, observeRun('nested', 'go', nested(resumedScheduler, new Map()), { store: cut, runId: RUN_ID, scheduler: resumedScheduler }));
  return resumed.events;
}

const summary = (nodes: readonly RunNode[]): string[] => nodes.map((node) => `${node.callId} ${node.status}`);

describe('runView of a resumed durable run', () => {
  it('shows the attempt a stop cut off as interrupted, not failed, and links it to the attempt that took its place', async () => {
    const view = (await resumedEvents()).reduce(reduceRunView, emptyRunView);
    expect(view.status).toBe('completed');
    expect(summary(view.nodes)).toEqual(['run completed', 'run/0 interrupted', 'run/0/0 completed', 'run/0#2 completed', 'run/0#2/0 completed']);
    const byId = new Map(view.nodes.map((node) => [node.callId, node]));
    expect(byId.get('run/0')).toMatchObject({ supersededBy: 'run/0#2', error: { code: 'CALL_INTERRUPTED' } });
    expect(byId.get('run/0#2')).toMatchObject({ supersedes: 'run/0' });
    expect(byId.get('run/0#2')?.supersededBy).toBeUndefined();
    expect(byId.get('run/0/0')?.supersedes).toBeUndefined();
  });

  it('withoutSupersededAttempts folds the interrupted attempt and what is under it, keeping the nodes themselves', async () => {
    const view = (await resumedEvents()).reduce(reduceRunView, emptyRunView);
    const shown = withoutSupersededAttempts(view);
    expect(summary(shown)).toEqual(['run completed', 'run/0#2 completed', 'run/0#2/0 completed']);
    expect(shown.every((node) => view.nodes.includes(node))).toBe(true);
  });

  it('keeps an interrupted attempt whose next attempt has not started: it is the latest word on its call', async () => {
    const events = await resumedEvents();
    const beforeRetry = events.slice(0, events.findIndex((event) => event.type === 'call-start' && event.callId === 'run/0#2'));
    const view = beforeRetry.reduce(reduceRunView, emptyRunView);
    expect(summary(withoutSupersededAttempts(view))).toEqual(['run running', 'run/0 interrupted', 'run/0/0 completed']);
  });

  it('reads a nested run and a question closed by the stop as interrupted too; other errors stay failed or cancelled', () => {
    const base = { runId: 'r', at: 0 } as const;
    const interrupted = serializeError(new CallInterruptedError('r', 'run/0', 'outer'));
    const events: RunEvent[] = [
      { type: 'run-start', ...base, callId: 'run', parentCallId: null, name: 'app', input: 'go' },
      { type: 'call-start', ...base, callId: 'run/0', parentCallId: 'run', agentId: 'outer', input: 'go' },
      { type: 'run-start', ...base, callId: 'run/0/0', parentCallId: 'run/0', name: 'chain', input: 'go' },
      { type: 'interrupt', ...base, callId: 'run/0/0/0', parentCallId: 'run/0/0', interruptId: 'i1', kind: 'input', question: 'ok?', schema: { type: 'string' } },
      { type: 'call-start', ...base, callId: 'run/1', parentCallId: 'run', agentId: 'broken', input: 'go' },
      { type: 'call-start', ...base, callId: 'run/2', parentCallId: 'run', agentId: 'left', input: 'go' },
      { type: 'interrupt-end', ...base, callId: 'run/0/0/0', parentCallId: 'run/0/0', interruptId: 'i1', answered: false, error: interrupted, durationMs: 1 },
      { type: 'run-end', ...base, callId: 'run/0/0', parentCallId: 'run/0', success: false, error: interrupted, durationMs: 1 },
      { type: 'call-error', ...base, callId: 'run/0', parentCallId: 'run', agentId: 'outer', error: interrupted, durationMs: 1 },
      { type: 'call-error', ...base, callId: 'run/1', parentCallId: 'run', agentId: 'broken', error: { name: 'AgentError', message: 'quota', code: 'AGENT_ERROR' }, durationMs: 1 },
      { type: 'call-error', ...base, callId: 'run/2', parentCallId: 'run', agentId: 'left', error: { name: 'AbortError', message: 'left' }, durationMs: 1 },
    ];
    const view = events.reduce(reduceRunView, emptyRunView);
    expect(summary(view.nodes)).toEqual(['run running', 'run/0 interrupted', 'run/0/0 interrupted', 'run/0/0/0 interrupted', 'run/1 failed', 'run/2 cancelled']);
  });

  it('links a third attempt to the second, and only the last segment counts as an attempt', () => {
    const base = { runId: 'r', at: 0, parentCallId: 'run' } as const;
    const events: RunEvent[] = [
      { type: 'run-start', runId: 'r', at: 0, callId: 'run', parentCallId: null, name: 'app', input: 'go' },
      ...['run/0', 'run/0#2', 'run/0#3'].map((callId): RunEvent => ({ type: 'call-start', ...base, callId, agentId: 'a', input: 'go' })),
      { type: 'call-start', ...base, parentCallId: 'run/0#3', callId: 'run/0#3/0', agentId: 'b', input: 'go' },
    ];
    const byId = new Map(events.reduce(reduceRunView, emptyRunView).nodes.map((node) => [node.callId, node]));
    expect([byId.get('run/0')?.supersededBy, byId.get('run/0#2')?.supersedes, byId.get('run/0#2')?.supersededBy, byId.get('run/0#3')?.supersedes]).toEqual(['run/0#2', 'run/0', 'run/0#3', 'run/0#2']);
    expect(byId.get('run/0#3/0')?.supersedes).toBeUndefined();
  });

  it('refuses what is not a view with a ConfigError', () => {
    expect(() => withoutSupersededAttempts(null as never)).toThrow(/withoutSupersededAttempts: view must be a RunView/);
  });
});
