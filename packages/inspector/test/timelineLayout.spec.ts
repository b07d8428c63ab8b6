import { asyncScheduler, lastValueFrom, toArray } from 'rxjs';
import { emptyRunView, reduceRunView, type RunEvent } from '@rxagents/core';
import { handoffEvents, failedEvents } from '../../../scripts/inspectorRuns';
import { timelineLayout } from '../src/page/timelineLayout';
import { metricsSeries, splitConstant } from '../src/page/metricsSeries';
import { viewAt } from '../src/page/viewAt';

const runOf = (events$: Parameters<typeof lastValueFrom<RunEvent[]>>[0]) => lastValueFrom(events$);
const fold = (events: readonly RunEvent[]) => events.reduce(reduceRunView, emptyRunView);

describe('timelineLayout', () => {
  it('puts each agent on its own lane, a bar per call, and a handoff as an arrow between their lanes (the chain starts at intake, which hands off without a call)', async () => {
    const events = await runOf(handoffEvents({ scheduler: asyncScheduler, wordMs: 1 }).pipe(toArray()));
    const layout = timelineLayout(fold(events), events);
    expect(layout.lanes).toEqual(['intake', 'extractor', 'writer']);
    expect(layout.bars.map((bar) => [layout.lanes[bar.lane], bar.status])).toEqual([
      ['extractor', 'completed'],
      ['writer', 'completed'],
    ]);
    expect(layout.arrows.map((arrow) => [layout.lanes[arrow.from], layout.lanes[arrow.to]])).toEqual([
      ['intake', 'extractor'],
      ['extractor', 'writer'],
    ]);
    for (const bar of layout.bars) expect(bar.end).toBeGreaterThanOrEqual(bar.start);
  });

  it("marks a failed call's end and the failed run's error on the lane where it ended, keeping lanes in call order", async () => {
    const events = await runOf(failedEvents({ scheduler: asyncScheduler, wordMs: 1 }).pipe(toArray()));
    const layout = timelineLayout(fold(events), events);
    expect(layout.lanes).toEqual(['triage', 'payments']);
    expect(layout.markers.map((marker) => [marker.kind, layout.lanes[marker.lane]])).toEqual([
      ['error', 'payments'],
      ['error', 'payments'],
    ]);
  });

  it('shows a call that had not ended by the cursor as running up to the moment shown', async () => {
    const events = await runOf(handoffEvents({ scheduler: asyncScheduler, wordMs: 1 }).pipe(toArray()));
    const started = events.find((event) => event.type === 'call-start' && event.agentId === 'extractor') as RunEvent;
    const shown = events.filter((event) => event.at <= started.at);
    const layout = timelineLayout(viewAt(events, started.at), shown);
    const extractor = layout.bars.find((bar) => layout.lanes[bar.lane] === 'extractor');
    expect(extractor?.status).toBe('running');
    expect(layout.lanes).not.toContain('writer');
  });

  it('marks a question to a person on the lane of the agent whose call asked, and one the run asked on a lane of its own', () => {
    const base = { runId: 'r', parentCallId: 'run' };
    const events: RunEvent[] = [
      { type: 'run-start', runId: 'r', callId: 'run', parentCallId: null, at: 0, name: 'invoice', input: 'bill ACME' },
      { type: 'call-start', ...base, callId: 'c1', at: 1, agentId: 'clerk', input: 'bill ACME' },
      { type: 'interrupt', ...base, callId: 'i1', parentCallId: 'c1', at: 2, interruptId: 'q1', kind: 'approval', question: 'Send it?', schema: {}, action: 'send_invoice', args: { to: 'ACME' } },
      { type: 'interrupt', ...base, callId: 'i2', at: 3, interruptId: 'q2', kind: 'input', question: 'Who signs?', schema: { type: 'string' } },
    ];
    const layout = timelineLayout(fold(events), events);
    expect(layout.markers.map((marker) => [marker.kind, marker.callId, layout.lanes[marker.lane], marker.at])).toEqual([
      ['interrupt', 'i1', 'clerk', 2],
      ['interrupt', 'i2', 'person', 3],
    ]);
  });
});

describe('metricsSeries', () => {
  it('makes a line per numeric metric of each source, the constant ones apart', () => {
    const metrics = (at: number, delivered: number): RunEvent => ({ type: 'metrics', runId: 'r', callId: 'run', parentCallId: null, at, source: 'debate', metrics: { delivered, bufferCapacity: 256, strategy: 'BLOCK' } });
    const { changing, constant } = splitConstant(metricsSeries([metrics(1, 0), metrics(2, 3), metrics(4, 5)]));
    expect(changing.map((line) => [line.metric, line.points.map((point) => point.value)])).toEqual([['delivered', [0, 3, 5]]]);
    expect(constant.map((line) => line.metric)).toEqual(['bufferCapacity']);
  });
});
