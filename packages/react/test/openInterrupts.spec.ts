import { emptyRunView, reduceRunView, type RunEvent } from '@rxagents/core';
import { openInterrupts } from '@rxagents/react';

const base = { runId: 'r', parentCallId: 'root', at: 0 } as const;
const runStart: RunEvent = { type: 'run-start', runId: 'r', callId: 'root', parentCallId: null, at: 0, name: 'invoice', input: 'bill ACME' };
const asked = (callId: string, interruptId: string, question: string): RunEvent => ({ type: 'interrupt', ...base, callId, interruptId, kind: 'input', question, schema: { type: 'string' } });
const ended = (callId: string, interruptId: string): RunEvent => ({ type: 'interrupt-end', ...base, callId, interruptId, answered: true, answer: 'ok', durationMs: 1 });
const viewOf = (events: RunEvent[]) => events.reduce(reduceRunView, emptyRunView);

describe('openInterrupts', () => {
  it('lists the interrupts still waiting, oldest first, each as its interrupt event', () => {
    const events = [runStart, asked('q1', 'id-1', 'Name?'), asked('q2', 'id-2', 'Age?'), asked('q3', 'id-3', 'City?'), ended('q2', 'id-2')];
    const open = openInterrupts(viewOf(events));
    expect(open.map((each) => [each.interruptId, each.question, each.schema])).toEqual([
      ['id-1', 'Name?', { type: 'string' }],
      ['id-3', 'City?', { type: 'string' }],
    ]);
    expect(open[0]).toBe(events[1]);
  });

  it('lists a question asked again under the same id once, as its latest node says it', () => {
    const cut: RunEvent = { type: 'interrupt-end', ...base, callId: 'q1', interruptId: 'id-1', answered: false, error: { name: 'CallInterruptedError', message: 'stopped', code: 'CALL_INTERRUPTED' }, durationMs: 1 };
    const again = asked('q1-again', 'id-1', 'Name?');
    expect(openInterrupts(viewOf([runStart, asked('q1', 'id-1', 'Name?'), cut, again]))).toEqual([again]);
    expect(openInterrupts(viewOf([runStart, asked('q1', 'id-1', 'Name?'), again, ended('q1-again', 'id-1')]))).toEqual([]);
  });

  it('lists none in an empty view or once the run ended them', () => {
    expect(openInterrupts(emptyRunView)).toEqual([]);
    const cancelled: RunEvent = { type: 'interrupt-end', ...base, callId: 'q1', interruptId: 'id-1', answered: false, error: { name: 'AbortError', message: 'cancelled' }, durationMs: 1 };
    expect(openInterrupts(viewOf([runStart, asked('q1', 'id-1', 'Name?'), cancelled]))).toEqual([]);
  });
});
