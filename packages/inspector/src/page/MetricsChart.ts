import { createElement as h, type ReactElement } from 'react';
import type { RunEvent } from '@rxagents/core';
import { metricsSeries, splitConstant } from './metricsSeries';

const WIDTH = 1000;
const HEIGHT = 160;
const PAD = 30;
const PALETTE = ['#0969da', '#1a7f37', '#cf222e', '#8250df', '#bf8700', '#1b7c83', '#bc4c00', '#6e7781'];

/** Every numeric channel metric as a line over the run's time (`metrics` events). */
export function MetricsChart({ events, start, end }: { events: readonly RunEvent[]; start: number; end: number }): ReactElement {
  const { changing: series, constant } = splitConstant(metricsSeries(events));
  const constants = constant.map((line) => `${line.source} ${line.metric} = ${line.points[0]?.value ?? ''}`).join(' · ');
  const top = Math.max(1, ...series.flatMap((line) => line.points.map((point) => point.value)));
  const x = (at: number): number => PAD + ((at - start) / Math.max(1, end - start)) * (WIDTH - 2 * PAD);
  const y = (value: number): number => HEIGHT - PAD + 10 - (value / top) * (HEIGHT - PAD - 10);
  return h(
    'section',
    { id: 'metrics' },
    h('h2', null, 'Channel metrics'),
    constants === '' ? null : h('p', { className: 'constant' }, `Constant: ${constants}`),
    series.length === 0
      ? h('p', null, constant.length === 0 ? 'No metrics yet' : 'Nothing changed yet')
      : h(
          'svg',
          { viewBox: `0 0 ${WIDTH} ${HEIGHT + 16 * Math.ceil(series.length / 4)}`, width: '100%', role: 'img', 'aria-label': 'channel metrics' },
          h('line', { x1: PAD, x2: WIDTH - PAD, y1: y(0), y2: y(0), stroke: '#d0d7de' }),
          h('text', { x: 2, y: y(top) + 4 }, String(top)),
          h('text', { x: 2, y: y(0) + 4 }, '0'),
          ...series.map((line, index) =>
            h('polyline', {
              key: `${line.source}/${line.metric}`,
              className: 'series',
              'data-source': line.source,
              'data-metric': line.metric,
              fill: 'none',
              stroke: PALETTE[index % PALETTE.length],
              strokeWidth: 2,
              points: line.points.map((point) => `${x(point.at)},${y(point.value)}`).join(' '),
            }),
          ),
          ...series.map((line, index) =>
            h('text', { key: `legend-${line.source}/${line.metric}`, x: PAD + (index % 4) * 240, y: HEIGHT + 12 + 16 * Math.floor(index / 4), fill: PALETTE[index % PALETTE.length] }, `${line.source} ${line.metric}`),
          ),
        ),
  );
}
