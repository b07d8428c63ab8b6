import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { asyncScheduler, lastValueFrom, toArray } from 'rxjs';
import { emptyRunView, reduceRunView, type RunEvent } from '@rxagents/core';
import { resumedEvents } from '../../../scripts/inspectorRuns';
import { RunTree } from '../src/page/RunTree';
import { timelineLayout } from '../src/page/timelineLayout';

const fold = (events: readonly RunEvent[]) => events.reduce(reduceRunView, emptyRunView);
const resumed = () => lastValueFrom(resumedEvents({ scheduler: asyncScheduler, wordMs: 1 }).pipe(toArray()));
const tree = (events: readonly RunEvent[], folded: boolean): string =>
  renderToStaticMarkup(createElement(RunTree, { view: fold(events), selected: null, select: () => undefined, fold: folded, setFold: () => undefined }));

describe('a resumed run in the inspector', () => {
  it('lays the attempt a stop cut off out as interrupted, with its own mark and no error, beside the attempt that answered', async () => {
    const events = await resumed();
    const layout = timelineLayout(fold(events), events);
    expect(layout.bars.map((bar) => [bar.callId, layout.lanes[bar.lane], bar.status])).toEqual([
      ['run/0', 'triage', 'completed'],
      ['run/1', 'biller', 'interrupted'],
      ['run/1#2', 'biller', 'completed'],
    ]);
    expect(layout.markers.map((marker) => [marker.kind, marker.callId])).toEqual([['interrupted', 'run/1']]);
  });

  it('folds the interrupted attempt out of the timeline when asked', async () => {
    const events = await resumed();
    const layout = timelineLayout(fold(events), events, true);
    expect(layout.bars.map((bar) => [bar.callId, bar.status])).toEqual([
      ['run/0', 'completed'],
      ['run/1#2', 'completed'],
    ]);
    expect(layout.markers).toEqual([]);
  });

  it('shows the interrupted attempt in the tree as interrupted, not failed, the next one as attempt 2, and folds it with the toggle', async () => {
    const events = await resumed();
    const shown = tree(events, false);
    expect(shown).toContain('data-status="interrupted" data-call-id="run/1"');
    expect(shown).not.toContain('failed');
    expect(shown).toMatch(/data-call-id="run\/1#2">.*<span class="attempt"[^>]*>attempt 2<\/span>/);
    expect(shown).toContain('fold 1 interrupted attempt');
    const folded = tree(events, true);
    expect(folded).not.toContain('data-call-id="run/1"');
    expect(folded).toContain('data-call-id="run/1#2"');
  });
});
