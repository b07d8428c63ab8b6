import { withoutSupersededAttempts, type RunEvent, type RunNode, type RunView } from '@rxagents/core';

/** A call's bar on its agent's lane, from its start to its end (to `now` while it runs). */
export interface Bar {
  readonly callId: string;
  readonly lane: number;
  readonly start: number;
  readonly end: number;
  readonly status: RunNode['status'];
}

/** A point on a lane: an interrupt (a question to a person), an error, or where a stopped process cut a call off. */
export interface Marker {
  readonly callId: string;
  readonly lane: number;
  readonly at: number;
  readonly kind: 'interrupt' | 'error' | 'interrupted';
}

/** A handoff from one agent's lane to another's. */
export interface Arrow {
  readonly from: number;
  readonly to: number;
  readonly at: number;
}

/** What the timeline draws: lanes (one per agent, in order of first call), bars, markers, arrows, and its time span. */
export interface TimelineLayout {
  readonly lanes: readonly string[];
  readonly bars: readonly Bar[];
  readonly markers: readonly Marker[];
  readonly arrows: readonly Arrow[];
  readonly start: number;
  readonly end: number;
}

/**
 * Lays out a run view (and the events it was folded from, for handoffs and the order of lanes) as agent
 * lanes; with `fold`, without the attempts a resumed durable run made again (and what is under them).
 */
export function timelineLayout(view: RunView, events: readonly RunEvent[], fold = false): TimelineLayout {
  const lanes: string[] = [];
  const laneOf = (agent: string): number => {
    const known = lanes.indexOf(agent);
    if (known >= 0) return known;
    lanes.push(agent);
    return lanes.length - 1;
  };
  // Lanes in the order agents first show up: handing off (a chain's first agent hands off without a call) or called.
  for (const event of events) {
    if (event.type === 'handoff') {
      laneOf(event.from);
      laneOf(event.to);
    } else if (event.type === 'call-start') laneOf(event.agentId);
  }
  const byId = new Map(view.nodes.map((node) => [node.callId, node]));
  const now = view.at ?? 0;
  const start = view.nodes.reduce((earliest, node) => Math.min(earliest, node.startedAt), Infinity);
  const bars: Bar[] = [];
  const markers: Marker[] = [];
  for (const node of fold ? withoutSupersededAttempts(view) : view.nodes) {
    const end = node.durationMs === undefined ? now : node.startedAt + node.durationMs;
    if (node.kind === 'call') {
      const lane = laneOf(node.name);
      bars.push({ callId: node.callId, lane, start: node.startedAt, end, status: node.status });
      if (node.status === 'failed') markers.push({ callId: node.callId, lane, at: end, kind: 'error' });
      // Its end is when the resumed run closed it: a mark of its own, not an error's.
      if (node.status === 'interrupted') markers.push({ callId: node.callId, lane, at: end, kind: 'interrupted' });
    } else if (node.kind === 'interrupt') {
      markers.push({ callId: node.callId, lane: laneOf(askerOf(node, byId)), at: node.startedAt, kind: 'interrupt' });
    }
  }
  const root = view.rootId === null ? undefined : byId.get(view.rootId);
  if (root?.status === 'failed') {
    // A run's own error shows on the lane of its last call, where it ended.
    markers.push({ callId: root.callId, lane: laneOf(lastAgentOf(view) ?? root.name), at: root.durationMs === undefined ? now : root.startedAt + root.durationMs, kind: 'error' });
  }
  const arrows: Arrow[] = [];
  for (const event of events) if (event.type === 'handoff') arrows.push({ from: laneOf(event.from), to: laneOf(event.to), at: event.at });
  const span = Number.isFinite(start) ? start : 0;
  return { lanes, bars, markers, arrows, start: span, end: Math.max(now, span + 1) };
}

/** The agent whose call asked (its nearest call ancestor), else the run's name. */
function askerOf(node: RunNode, byId: ReadonlyMap<string, RunNode>): string {
  let parent = node.parentCallId === null ? undefined : byId.get(node.parentCallId);
  while (parent !== undefined && parent.kind !== 'call') parent = parent.parentCallId === null ? undefined : byId.get(parent.parentCallId);
  return parent?.name ?? 'person';
}

/** The agent of the run's last call to start, where a failed run's error shows. */
function lastAgentOf(view: RunView): string | undefined {
  const calls = view.nodes.filter((node) => node.kind === 'call');
  return calls[calls.length - 1]?.name;
}
