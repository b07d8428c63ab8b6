import { createElement as h, type ReactElement } from 'react';
import type { RunEvent, RunView } from '@rxagents/core';
import { timelineLayout } from './timelineLayout';

const WIDTH = 1000;
const LABEL = 110;
const LANE = 26;
const COLORS: Readonly<Record<string, string>> = { running: '#54aeff', completed: '#4ac26b', failed: '#ff8182', cancelled: '#afb8c1', interrupted: '#d4a72c' };

/**
 * One lane per agent: a bar per call, handoffs as arrows between lanes, interrupts, errors and calls a
 * stopped process cut off as markers; with `fold`, without the attempts a resumed run made again.
 */
export function Timeline({ view, events, select, fold }: { view: RunView; events: readonly RunEvent[]; select: (callId: string) => void; fold: boolean }): ReactElement {
  const layout = timelineLayout(view, events, fold);
  const x = (at: number): number => LABEL + ((at - layout.start) / (layout.end - layout.start)) * (WIDTH - LABEL - 10);
  const y = (lane: number): number => 18 + lane * LANE;
  const height = 24 + Math.max(1, layout.lanes.length) * LANE;
  return h(
    'section',
    { id: 'timeline' },
    h('h2', null, `Timeline (${layout.end - layout.start} ms)`),
    h(
      'svg',
      { viewBox: `0 0 ${WIDTH} ${height}`, width: '100%', role: 'img', 'aria-label': 'timeline' },
      h('defs', null, h('marker', { id: 'arrowhead', viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 6, markerHeight: 6, orient: 'auto' }, h('path', { d: 'M0,0 L10,5 L0,10 z', fill: '#8250df' }))),
      ...layout.lanes.map((agent, lane) =>
        h(
          'g',
          { key: `lane-${agent}`, className: 'lane', 'data-agent': agent },
          h('line', { x1: LABEL, x2: WIDTH - 10, y1: y(lane) + 9, y2: y(lane) + 9, stroke: '#eaeef2' }),
          h('text', { x: 4, y: y(lane) + 13 }, agent),
          ...layout.bars
            .filter((bar) => bar.lane === lane)
            .map((bar) =>
              h('rect', {
                key: bar.callId,
                className: 'bar',
                'data-call-id': bar.callId,
                'data-status': bar.status,
                x: x(bar.start),
                y: y(lane),
                width: Math.max(2, x(bar.end) - x(bar.start)),
                height: 18,
                rx: 3,
                fill: COLORS[bar.status] ?? '#afb8c1',
                onClick: () => select(bar.callId),
              }),
            ),
        ),
      ),
      ...layout.arrows.map((arrow, index) =>
        h('line', { key: `arrow-${index}`, className: 'handoff', x1: x(arrow.at), x2: x(arrow.at), y1: y(arrow.from) + 9, y2: y(arrow.to) + (arrow.to > arrow.from ? 0 : 18), stroke: '#8250df', strokeWidth: 2, markerEnd: 'url(#arrowhead)' }),
      ),
      ...layout.markers.map((marker) =>
        h(
          'g',
          { key: `marker-${marker.kind}-${marker.callId}`, className: `marker ${marker.kind}`, 'data-call-id': marker.callId, onClick: () => select(marker.callId) },
          marker.kind === 'error'
            ? h('text', { x: x(marker.at) - 5, y: y(marker.lane) + 14, fill: '#cf222e', fontWeight: 'bold' }, '✖')
            : marker.kind === 'interrupted'
              ? h('text', { x: x(marker.at) - 5, y: y(marker.lane) + 14, fill: '#7d4e00', fontWeight: 'bold' }, '↻')
              : h('circle', { cx: x(marker.at), cy: y(marker.lane) + 9, r: 6, fill: '#bf8700' }),
        ),
      ),
    ),
  );
}
