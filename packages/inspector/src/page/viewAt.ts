import { emptyRunView, reduceRunView, type RunEvent, type RunView } from '@rxagents/core';

/** The run as it was at `cursor`: its events with `at <= cursor`, folded by `reduceRunView`. */
export function viewAt(events: readonly RunEvent[], cursor: number): RunView {
  let view = emptyRunView;
  for (const event of events) if (event.at <= cursor) view = reduceRunView(view, event);
  return view;
}

/** The events that had happened by `cursor` (all of them without one). */
export function eventsAt(events: readonly RunEvent[], cursor: number | null): readonly RunEvent[] {
  return cursor === null ? events : events.filter((event) => event.at <= cursor);
}
