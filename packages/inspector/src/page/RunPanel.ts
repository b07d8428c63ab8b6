import { createElement as h, useMemo, useState, type ReactElement } from 'react';
import { defer, tap } from 'rxjs';
import type { RunEvent } from '@rxagents/core';
import { fromEventStream, type EventStreamStatus } from '@rxagents/web/client';
import { useRunView, type RunViewStatus } from '@rxagents/react';
import { MetricsChart } from './MetricsChart';
import { NodeDetails } from './NodeDetails';
import { RunTree } from './RunTree';
import { Timeline } from './Timeline';
import { eventsAt, viewAt } from './viewAt';

/** How the page is reading the run's events, in the heading above the time cursor. */
const READING: Readonly<Record<RunViewStatus, string>> = { connecting: 'connecting', live: 'reading live', reconnecting: 'reconnecting', ended: 'read to its end', failed: 'reading failed' };

/**
 * One run: its events, live while it runs (through `useRunView`), kept so that the time cursor can fold
 * those up to any moment again.
 */
export function RunPanel({ runId }: { runId: string }): ReactElement {
  const [connection, setConnection] = useState<EventStreamStatus | undefined>(undefined);
  const source = useMemo(() => {
    const events: RunEvent[] = [];
    const url = new URL(`api/runs/${encodeURIComponent(runId)}/events`, location.href);
    const events$ = defer(() => {
      events.length = 0;
      return fromEventStream(url, { onStatus: setConnection }).pipe(tap((event) => events.push(event)));
    });
    return { events, events$ };
  }, [runId]);
  const live = useRunView(source.events$);
  // The events come through an Observable (kept for the time cursor), so the connection's status is read here.
  const reconnecting = connection?.state === 'reconnecting' && (live.status === 'live' || live.status === 'connecting') ? connection : undefined;
  const reading = reconnecting === undefined ? READING[live.status] : `reconnecting, try ${reconnecting.attempt}`;
  const [cursor, setCursor] = useState<number | null>(null);
  const [selected, setSelected] = useState<string | null>(null);
  const [fold, setFold] = useState(false);
  const all = source.events;
  const first = all[0]?.at ?? 0;
  const last = all[all.length - 1]?.at ?? first;
  const view = cursor === null ? live.view : viewAt(all, cursor);
  const shown = eventsAt(all, cursor);
  const node = view.nodes.find((candidate) => candidate.callId === (selected ?? view.rootId));
  const layoutEnd = Math.max(view.at ?? first, first + 1);
  return h(
    'main',
    { 'data-run-id': runId, 'data-run': view.status, 'data-reading': reconnecting === undefined ? live.status : 'reconnecting' },
    h(
      'section',
      { id: 'cursor' },
      h('h2', null, cursor === null ? `Now: run ${view.status} (${reading})` : `At +${cursor - first} ms of ${last - first} ms`),
      h('input', {
        type: 'range',
        min: first,
        max: last,
        step: 1,
        value: cursor ?? last,
        'aria-label': 'time cursor',
        onChange: (event: { target: { value: string } }) => setCursor(Number(event.target.value)),
      }),
      h('button', { type: 'button', id: 'live', disabled: cursor === null, onClick: () => setCursor(null) }, 'Now'),
    ),
    h(RunTree, { view, selected: node?.callId ?? null, select: setSelected, fold, setFold }),
    h(NodeDetails, { node, runStart: first }),
    h(Timeline, { view, events: shown, select: setSelected, fold }),
    h(MetricsChart, { events: shown, start: first, end: layoutEnd }),
  );
}
