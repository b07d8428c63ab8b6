import { MemoryRunStore, type Agent, type ChatOptions, type RunEvent, type RunStore } from '@rxagents/core';
import type { Observable } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';

/**
 * Cut-the-journal-anywhere checks for durable runs, shared by the packages' `durableResume` specs.
 *
 * A run's agents answer on a `TestScheduler`'s virtual clock. `TestScheduler.run` cannot be used: a
 * durable run awaits its store (Promises), which `run` does not wait for. So the clock is stepped one
 * instant at a time, and Promises are settled between instants (as an event loop would between timers).
 */

/** Counts the chat calls of every agent it wraps, by agent id, and keeps each call's idempotency key. */
export class CallCounter {
  readonly counts = new Map<string, number>();
  readonly idempotencyKeys: (string | undefined)[] = [];

  /** `agent` with its calls counted: an agent of the same id and description that answers as `agent` does. */
  count(agent: Agent): Agent {
    const { id, name, role, goal } = agent;
    return {
      id,
      ...(name === undefined ? {} : { name }),
      ...(role === undefined ? {} : { role }),
      ...(goal === undefined ? {} : { goal }),
      chat: (input: string, options: ChatOptions) => {
        this.counts.set(id, (this.counts.get(id) ?? 0) + 1);
        this.idempotencyKeys.push(options.idempotencyKey);
        return agent.chat(input, options);
      },
    };
  }
}

/** What a scenario builds for one run: fresh agents on `scheduler`, counted by `calls`. */
export interface ScenarioContext {
  readonly scheduler: TestScheduler;
  readonly calls: CallCounter;
}

/** A durable primitive's run: its events with `store` and `runId`, built fresh for every run. */
export type Scenario = (context: ScenarioContext) => (options: { readonly store: RunStore; readonly runId: string }) => Observable<RunEvent>;

/** One run of a scenario on virtual time: its events and its agents' calls. */
export interface ScenarioRun {
  readonly events: RunEvent[];
  readonly calls: CallCounter;
}

const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Subscribes to `events$` and steps `scheduler` instant by instant until the events complete. */
export async function collectOnVirtualTime(scheduler: TestScheduler, events$: Observable<RunEvent>): Promise<RunEvent[]> {
  const events: RunEvent[] = [];
  let done = false;
  let failure: unknown;
  const subscription = events$.subscribe({
    next: (event) => events.push(event),
    error: (error: unknown) => {
      failure = error;
      done = true;
    },
    complete: () => {
      done = true;
    },
  });
  try {
    for (let idle = 0; !done; ) {
      await settle();
      if (done) break;
      const next = scheduler.actions[0] as unknown as { readonly delay: number } | undefined;
      if (next === undefined) {
        if (++idle > 50) throw new Error(`the run stalled at virtual time ${scheduler.now()} after ${events.length} events`);
        continue;
      }
      idle = 0;
      scheduler.maxFrames = next.delay;
      scheduler.flush();
    }
  } finally {
    subscription.unsubscribe();
  }
  if (failure !== undefined) throw failure;
  return events;
}

/** Runs `scenario` once with `store` and `runId`. */
export async function runScenario(scenario: Scenario, store: RunStore, runId: string): Promise<ScenarioRun> {
  const scheduler = new TestScheduler(() => undefined);
  const calls = new CallCounter();
  const start = scenario({ scheduler, calls });
  const events = await collectOnVirtualTime(scheduler, start({ store, runId }));
  return { events, calls };
}

/** A store holding the first `k` records of `journal` as `runId`'s journal. */
export async function cutJournal(runId: string, journal: readonly RunEvent[], k: number): Promise<MemoryRunStore> {
  const store = new MemoryRunStore();
  await store.append(runId, journal.slice(0, k));
  return store;
}

/** A run's journal as it is in `store`. */
export async function journalOf(store: RunStore, runId: string): Promise<RunEvent[]> {
  const events: RunEvent[] = [];
  for await (const record of store.read(runId)) events.push(record.event);
  return events;
}

const placeKeyOf = (callId: string | null): string | null => (callId === null ? null : callId.replace(/#\d+/g, ''));

/** How the event trees are compared: nested-run nodes whose children finish concurrently compare their own events as a multiset. */
export interface TreeOptions {
  readonly unorderedNodes?: boolean;
  /** Agents whose calls are not counted (a primitive that is itself the agent its run calls first, such as a routing agent). */
  readonly uncounted?: readonly string[];
}

/**
 * A run's event tree for comparing runs: events grouped by node, the node named by its place key (its
 * call id without `#n` attempts, which `callId` and `parentCallId` are rewritten to), `at` and
 * `durationMs` removed, and every interrupted attempt (a `call-error` with code `CALL_INTERRUPTED`) dropped
 * with everything under it. A call's events keep their order; a nested run's do too unless `unorderedNodes`.
 */
export function eventTree(events: readonly RunEvent[], options: TreeOptions = {}): Map<string, unknown[]> {
  const interrupted = events.filter((event) => event.type === 'call-error' && event.error.code === 'CALL_INTERRUPTED').map((event) => event.callId);
  const dropped = (callId: string): boolean => interrupted.some((cut) => callId === cut || callId.startsWith(`${cut}/`));
  const tree = new Map<string, unknown[]>();
  const calls = new Set<string>();
  for (const event of events) {
    if (dropped(event.callId)) continue;
    const { at: _at, ...rest } = event;
    const stripped: Record<string, unknown> = { ...rest, callId: placeKeyOf(event.callId), parentCallId: placeKeyOf(event.parentCallId) };
    delete stripped.durationMs;
    const key = placeKeyOf(event.callId) as string;
    if (event.type === 'call-start') calls.add(key);
    const node = tree.get(key);
    if (node === undefined) tree.set(key, [stripped]);
    else node.push(stripped);
  }
  if (options.unorderedNodes === true) {
    for (const [key, node] of tree) if (!calls.has(key)) node.sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));
  }
  return tree;
}

/** How many calls of each agent had not ended in the first `k` records of `journal` (those a resume must make). */
export function callsToMake(journal: readonly RunEvent[], k: number, uncounted: readonly string[] = []): Map<string, number> {
  const agentOf = new Map<string, string>();
  for (const event of journal) if (event.type === 'call-start' && !uncounted.includes(event.agentId)) agentOf.set(placeKeyOf(event.callId) as string, event.agentId);
  const ended = new Set<string>();
  for (const event of journal.slice(0, k)) {
    if (event.type === 'call-end' || (event.type === 'call-error' && event.error.code !== 'CALL_INTERRUPTED')) ended.add(placeKeyOf(event.callId) as string);
  }
  const counts = new Map<string, number>();
  for (const [place, agentId] of agentOf) if (!ended.has(place)) counts.set(agentId, (counts.get(agentId) ?? 0) + 1);
  return counts;
}

/** The root's `run-end` without its timings: the run's result as a reader sees it. */
export function resultOf(events: readonly RunEvent[]): unknown {
  const end = events.find((event) => event.type === 'run-end' && event.parentCallId === null);
  if (end === undefined || end.type !== 'run-end') return undefined;
  const { at: _at, durationMs: _durationMs, ...result } = end;
  return result;
}

/** What one resume from a cut journal gave, set beside what it must give. */
export interface ResumeCheck {
  readonly k: number;
  readonly result: unknown;
  readonly tree: Map<string, unknown[]>;
  readonly calls: Map<string, number>;
  readonly keysWellFormed: boolean;
}

/**
 * Runs `scenario` uninterrupted, then resumes it from every cut of its journal (`1..length`); returns the
 * uninterrupted run's result and tree and, for each k, what the resume gave and what it had to give.
 */
export async function resumeFromEveryCut(scenario: Scenario, options: TreeOptions = {}, runId = 'durable-run'): Promise<{ readonly expected: ResumeCheck; readonly resumes: { readonly actual: ResumeCheck; readonly expected: ResumeCheck }[] }> {
  const store = new MemoryRunStore();
  const whole = await runScenario(scenario, store, runId);
  const journal = await journalOf(store, runId);
  const uninterrupted = callsToMake(journal, 0, options.uncounted);
  if (JSON.stringify([...uninterrupted].sort()) !== JSON.stringify([...whole.calls.counts].sort())) {
    throw new Error(`the uninterrupted run called ${JSON.stringify([...whole.calls.counts])}, its journal shows ${JSON.stringify([...uninterrupted])}`);
  }
  const expected: ResumeCheck = { k: journal.length, result: resultOf(whole.events), tree: eventTree(whole.events, options), calls: whole.calls.counts, keysWellFormed: true };
  const resumes = [];
  for (let k = 1; k <= journal.length; k++) {
    const resumed = await runScenario(scenario, await cutJournal(runId, journal, k), runId);
    resumes.push({
      actual: {
        k,
        result: resultOf(resumed.events),
        tree: eventTree(resumed.events, options),
        calls: resumed.calls.counts,
        keysWellFormed: resumed.calls.idempotencyKeys.every((key) => key !== undefined && key.startsWith(`${runId}:run/`)),
      },
      expected: { ...expected, k, calls: callsToMake(journal, k, options.uncounted) },
    });
  }
  return { expected, resumes };
}

/**
 * Like {@link resumeFromEveryCut}, with a second crash: for every cut k1 of the uninterrupted journal, the
 * run is resumed, then cut again at every k2 from k1 to the end of that resumed journal (which holds the
 * closing events and the resumed run's attempts) and resumed once more; each second resume must give the
 * uninterrupted run's result and tree and call each agent once for each call not ended in its cut journal.
 */
export async function resumeFromEveryTwoCuts(scenario: Scenario, options: TreeOptions = {}, runId = 'durable-run'): Promise<{ readonly expected: ResumeCheck; readonly resumes: { readonly actual: ResumeCheck; readonly expected: ResumeCheck }[] }> {
  const store = new MemoryRunStore();
  const whole = await runScenario(scenario, store, runId);
  const journal = await journalOf(store, runId);
  const expected: ResumeCheck = { k: journal.length, result: resultOf(whole.events), tree: eventTree(whole.events, options), calls: whole.calls.counts, keysWellFormed: true };
  const resumes = [];
  for (let k1 = 1; k1 <= journal.length; k1++) {
    const first = await cutJournal(runId, journal, k1);
    await runScenario(scenario, first, runId);
    const resumedJournal = await journalOf(first, runId);
    for (let k2 = k1; k2 <= resumedJournal.length; k2++) {
      const again = await runScenario(scenario, await cutJournal(runId, resumedJournal, k2), runId);
      resumes.push({
        actual: {
          k: k2,
          result: resultOf(again.events),
          tree: eventTree(again.events, options),
          calls: again.calls.counts,
          keysWellFormed: again.calls.idempotencyKeys.every((key) => key !== undefined && key.startsWith(`${runId}:run/`)),
        },
        expected: { ...expected, k: k2, calls: callsToMake(resumedJournal, k2, options.uncounted) },
      });
    }
  }
  return { expected, resumes };
}
