import { concat, map, type Observable, timer } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { type Agent, defineAgent, MemoryRunStore, type RunEvent, type RunStore } from '../../src';

/** A TestScheduler whose flush runs only what is due (see {@link drive}). */
export function virtualTime(): TestScheduler {
  const scheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
  scheduler.maxFrames = 0;
  return scheduler;
}

const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Subscribes to `events$` and drives it on `scheduler`'s virtual time: frame by frame, letting the store's
 * Promises settle between frames, so time never runs ahead of a pending store call.
 */
export async function drive(scheduler: TestScheduler, events$: Observable<RunEvent>): Promise<{ events: RunEvent[]; error: unknown }> {
  const events: RunEvent[] = [];
  let done = false;
  let error: unknown;
  events$.subscribe({
    next: (event) => events.push(event),
    error: (failure: unknown) => {
      error = failure;
      done = true;
    },
    complete: () => {
      done = true;
    },
  });
  for (let idle = 0; !done; ) {
    await settle();
    if (done) break;
    const next = scheduler.actions[0];
    if (next === undefined) {
      if (++idle > 1_000) throw new Error('the run is stuck: nothing scheduled and nothing settles');
      continue;
    }
    idle = 0;
    scheduler.maxFrames = next.delay;
    scheduler.flush();
  }
  return { events, error };
}

/** Calls per agent id. */
export type CallCounts = Map<string, number>;

/**
 * An agent answering `id(input)` in two chunks, 5 ms apart, on `scheduler`, counting its calls.
 */
export function countingAgent(id: string, scheduler: TestScheduler, counts: CallCounts, gapMs = 5): Agent {
  return defineAgent(id, (input) => {
    counts.set(id, (counts.get(id) ?? 0) + 1);
    return concat(timer(gapMs, scheduler).pipe(map(() => `${id}(`)), timer(gapMs, scheduler).pipe(map(() => `${input})`)));
  });
}

/** A store holding the first `k` events of a journal (a process that stopped after writing them). */
export async function cutJournal(journal: readonly RunEvent[], k: number, runId: string, scheduler: TestScheduler): Promise<MemoryRunStore> {
  const store = new MemoryRunStore({ scheduler });
  if (k > 0) await store.append(runId, journal.slice(0, k));
  return store;
}

export async function journalOf(store: RunStore, runId: string): Promise<RunEvent[]> {
  const events: RunEvent[] = [];
  for await (const record of store.read(runId)) events.push(record.event);
  return events;
}

const placeKey = (callId: string): string => callId.replace(/#\d+/g, '');

/**
 * The events without the attempts that were interrupted (and everything under them), each without its
 * times and with its ids as place keys: what must equal between a resumed run and an uninterrupted one.
 */
export function comparable(events: readonly RunEvent[]): object[] {
  const interrupted = new Set<string>();
  const parents = new Map<string, string | null>();
  for (const event of events) {
    if (event.type === 'run-start' || event.type === 'call-start') parents.set(event.callId, event.parentCallId);
    if (event.type === 'call-error' && event.error.code === 'CALL_INTERRUPTED') interrupted.add(event.callId);
  }
  const underInterrupted = (callId: string): boolean => {
    for (let at: string | null | undefined = callId; at !== null && at !== undefined; at = parents.get(at)) if (interrupted.has(at)) return true;
    return false;
  };
  return events
    .filter((event) => !underInterrupted(event.callId))
    .map((event) => {
      const { at: _at, ...rest } = event;
      const copy: Record<string, unknown> = { ...rest, callId: placeKey(event.callId), parentCallId: event.parentCallId === null ? null : placeKey(event.parentCallId) };
      delete copy['durationMs'];
      return copy;
    });
}

/** {@link comparable}, grouped by node (place key), each node's events in order: the run's event tree. */
export function tree(events: readonly RunEvent[]): [string, object[]][] {
  const nodes = new Map<string, object[]>();
  for (const event of comparable(events)) {
    const key = (event as { callId: string }).callId;
    nodes.set(key, [...(nodes.get(key) ?? []), event]);
  }
  return [...nodes.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** How many calls of each agent the uninterrupted run made that had not ended in its first `k` events. */
export function callsNotEndedIn(journal: readonly RunEvent[], k: number): CallCounts {
  const ended = new Set<string>();
  for (const event of journal.slice(0, k)) if (event.type === 'call-end' || event.type === 'call-error') ended.add(event.callId);
  const counts: CallCounts = new Map();
  for (const event of journal) if (event.type === 'call-start' && !ended.has(event.callId)) counts.set(event.agentId, (counts.get(event.agentId) ?? 0) + 1);
  return counts;
}

/** The root's `run-end`. */
export function rootEnd(events: readonly RunEvent[]): RunEvent | undefined {
  return events.find((event) => event.type === 'run-end' && event.parentCallId === null);
}
