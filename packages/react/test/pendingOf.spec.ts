import { queueScheduler, Subject } from 'rxjs';
import type { RunEvent } from '@rxagents/core';
import { createRunViewStore } from '@rxagents/react';
import { pendingOf } from '../src/internal/pendingOf';

const base = { runId: 'r', parentCallId: 'root', at: 0 } as const;
const runStart: RunEvent = { type: 'run-start', runId: 'r', callId: 'root', parentCallId: null, at: 0, name: 'invoice', input: 'go' };
const callStart: RunEvent = { type: 'call-start', ...base, callId: 'c1', agentId: 'writer', input: 'go' };
const delta: RunEvent = { type: 'text-delta', ...base, callId: 'c1', agentId: 'writer', delta: 'tok ' };
const asked: RunEvent = { type: 'interrupt', ...base, callId: 'q1', interruptId: 'id-1', kind: 'input', question: 'Name?', schema: { type: 'string' } };
const answered: RunEvent = { type: 'interrupt-end', ...base, callId: 'q1', interruptId: 'id-1', answered: true, answer: 'Ada', durationMs: 1 };

// What usePendingInterrupts reads: a component renders again only when its snapshot is another object.
describe('the snapshots of usePendingInterrupts', () => {
  it('stay the same object while no question opens or closes and the status stays, tokens or not', () => {
    const events = new Subject<RunEvent>();
    const store = createRunViewStore(events, { frameScheduler: queueScheduler });
    const pending = pendingOf(store);
    store.subscribe(() => undefined);
    const server = pending.getServerSnapshot();
    expect(server).toEqual({ interrupts: [], error: undefined, status: 'connecting' });

    events.next(runStart);
    const live = pending.getSnapshot();
    expect(live).toEqual({ interrupts: [], error: undefined, status: 'live' });
    events.next(callStart);
    events.next(delta);
    expect(pending.getSnapshot()).toBe(live);

    events.next(asked);
    const open = pending.getSnapshot();
    expect(open.interrupts.map((each) => each.interruptId)).toEqual(['id-1']);
    events.next(delta);
    events.next(delta);
    expect(pending.getSnapshot()).toBe(open);

    events.next(answered);
    expect(pending.getSnapshot().interrupts).toEqual([]);
    events.complete();
    expect(pending.getSnapshot()).toMatchObject({ interrupts: [], status: 'ended' });
  });
});
