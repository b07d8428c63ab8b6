import type { RunEvent } from '@rxagents/core';

/** One line of the metrics chart: a numeric metric of one source, sampled over time. */
export interface MetricsSeries {
  readonly source: string;
  readonly metric: string;
  readonly points: readonly { readonly at: number; readonly value: number }[];
}

/** Every numeric metric of every source (`metrics` events), in the order they first appear. */
export function metricsSeries(events: readonly RunEvent[]): readonly MetricsSeries[] {
  const series = new Map<string, { source: string; metric: string; points: { at: number; value: number }[] }>();
  for (const event of events) {
    if (event.type !== 'metrics') continue;
    for (const [metric, value] of Object.entries(event.metrics)) {
      if (typeof value !== 'number' || !Number.isFinite(value)) continue;
      const key = JSON.stringify([event.source, metric]);
      let line = series.get(key);
      if (line === undefined) {
        line = { source: event.source, metric, points: [] };
        series.set(key, line);
      }
      line.points.push({ at: event.at, value });
    }
  }
  return [...series.values()];
}

/** The series that change (worth a line), and the constant ones (a capacity, a count that stayed 0), said once. */
export function splitConstant(series: readonly MetricsSeries[]): { readonly changing: readonly MetricsSeries[]; readonly constant: readonly MetricsSeries[] } {
  const isConstant = (line: MetricsSeries): boolean => line.points.every((point) => point.value === line.points[0]?.value);
  return { changing: series.filter((line) => !isConstant(line)), constant: series.filter(isConstant) };
}
