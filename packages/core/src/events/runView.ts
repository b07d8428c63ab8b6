import { isObservable, type Observable, scan } from 'rxjs';
import { ConfigError } from '../errors/ConfigError';
import type { RunEvent, RunEventOf } from './RunEvent';
import type { SerializedError } from './SerializedError';
import { fieldsOf, treeOf, viewOf, type Tree } from '../internal/runViewTree';
import { previousAttemptOf } from '../internal/durable/placeKeys';

/**
 * Where a node of a run stands.
 *
 * @remarks
 * `interrupted` is a node the process running a durable run stopped under (a crash, a deploy): when the
 * run resumed, its journal closed it with a `CallInterruptedError` (code `CALL_INTERRUPTED`), and the
 * call runs again as a next attempt, which the node's `supersededBy` names once it started. It did not
 * fail: nothing went wrong in the call. `failed` is any other error, `cancelled` an `AbortError`.
 *
 * @example
 * ```ts
 * import type { RunNodeStatus } from '@rxagents/core';
 *
 * const done: readonly RunNodeStatus[] = ['completed', 'failed', 'cancelled', 'interrupted'];
 * console.log(done.includes('running')); // false
 * ```
 */
export type RunNodeStatus = 'running' | 'completed' | 'failed' | 'cancelled' | 'interrupted';

/**
 * Token counts summed from `usage` events.
 *
 * @example
 * ```ts
 * import type { RunUsage } from '@rxagents/core';
 *
 * const usage: RunUsage = { inputTokens: 12, outputTokens: 40, totalTokens: 52 };
 * console.log(usage.totalTokens); // 52
 * ```
 */
export interface RunUsage {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly totalTokens: number;
}

/**
 * One node of a {@link RunView}: a run (or nested run) or an agent call.
 *
 * @example
 * ```ts
 * import type { RunNode } from '@rxagents/core';
 *
 * const label = (node: RunNode): string => `${node.name} [${node.status}] ${node.text}`;
 * console.log(typeof label); // function
 * ```
 */
export interface RunNode {
  /** The node's id (the `callId` of its events). */
  readonly callId: string;
  /** The node it nests under, `null` for the root. */
  readonly parentCallId: string | null;
  /** `run` for a run or nested run, `call` for an agent call, `interrupt` for a question to a person. */
  readonly kind: 'run' | 'call' | 'interrupt';
  /** The run's name, the agent's id, or an interrupt's action (`input` for a request for input). */
  readonly name: string;
  /** What it was asked (`''` when its start left out an input longer than `MAX_TEXT_FIELD_LENGTH` as JSON). */
  readonly input: string;
  /**
   * An agent call's text so far (all of it once it ended); a run's output once it ended, when its
   * `run-end` repeats it (an output longer than `MAX_TEXT_FIELD_LENGTH` as JSON is not: read its calls' text).
   */
  readonly text: string;
  readonly status: RunNodeStatus;
  /** Scheduler time it started, in ms. */
  readonly startedAt: number;
  /** How long it took, once it ended. */
  readonly durationMs?: number;
  /** Why it failed, was cancelled or was interrupted. */
  readonly error?: SerializedError;
  /**
   * For an attempt a resumed durable run made again (an `interrupted` call): the `callId` of the attempt
   * that took its place (`run/1#2` for `run/1`), once that one started. A view that shows the run as it
   * stands now folds this node and everything under it: see {@link withoutSupersededAttempts}.
   */
  readonly supersededBy?: string;
  /** For a second or later attempt of a call: the `callId` of the attempt before it, when the view has it. */
  readonly supersedes?: string;
  /** Its children's ids, in start order. */
  readonly children: readonly string[];
  /** Tokens reported for it. */
  readonly usage?: RunUsage;
  /** What else happened at this node, in order: handoffs, steps, messages, rounds, terminations, custom events. */
  readonly log: readonly RunEvent[];
  /** For an interrupt: its `interrupt` event (the id to answer, the question, the schema, the action and its arguments). */
  readonly interrupt?: RunEventOf<'interrupt'>;
  /** For an interrupt that closed with an answer: the answer. */
  readonly answer?: RunEventOf<'interrupt-end'>['answer'];
}

/**
 * A whole run as plain, immutable, JSON-serialisable data: what a web page, a terminal UI or a test
 * renders and asserts against.
 *
 * @remarks
 * A view that {@link reduceRunView} returns keeps its nodes in a structure shared with the views before
 * and after it, and builds `nodes` as a frozen array when it is first read (once per view: later reads
 * return the same array). `nodes` reads as a plain array everywhere (an index, `length`, `map`, spreading,
 * `JSON.stringify`, `structuredClone`, deep equality), but reading it costs time in proportion to the
 * run's nodes, once per view read: read the views a screen shows (`auditTime(16)`), not every one.
 *
 * @example
 * ```ts
 * import { emptyRunView } from '@rxagents/core';
 *
 * console.log(emptyRunView.status, emptyRunView.nodes.length); // idle 0
 * ```
 */
export interface RunView {
  /** The run's id, once its first event arrived. */
  readonly runId: string | null;
  /** The root node's status; `idle` before any event. */
  readonly status: 'idle' | RunNodeStatus;
  /** The root node's id. */
  readonly rootId: string | null;
  /** Every node, in the order they started: a frozen array, built when first read. */
  readonly nodes: readonly RunNode[];
  /** Tokens over the whole run. */
  readonly usage: RunUsage;
  /** The latest metrics sample of each source (a channel id, say), in the order sources first reported. */
  readonly metrics: readonly RunEventOf<'metrics'>[];
  /** Scheduler time of the latest event. */
  readonly at: number | null;
}

const NO_USAGE: RunUsage = Object.freeze({ inputTokens: 0, outputTokens: 0, totalTokens: 0 });

/**
 * The view before any event: `status: 'idle'`, no nodes.
 *
 * @example
 * ```ts
 * import { emptyRunView, reduceRunView } from '@rxagents/core';
 *
 * const view = reduceRunView(emptyRunView, { type: 'run-start', runId: 'r', callId: 'a', parentCallId: null, at: 0, name: 'demo', input: 'hi' });
 * console.log(view.status); // running
 * ```
 */
export const emptyRunView: RunView = Object.freeze({ runId: null, status: 'idle', rootId: null, nodes: Object.freeze([]), usage: NO_USAGE, metrics: Object.freeze([]), at: null });

/**
 * Folds one event into a view: a pure function that returns a new view and never changes the old one.
 *
 * @remarks
 * Folding an event costs the same for a run of ten nodes as for one of thousands: nodes are found by
 * `callId` through an index the views of one fold share, and a changed node is put into the new view by
 * copying a few arrays of 32 (the views share the rest), not the list of all nodes. What still grows is
 * local: a start copies its parent's `children`, a logged event (a handoff, a step, a custom event) its
 * node's `log`, a `metrics` event the list of sources. Folding into a view that is not the newest of its
 * fold (two events folded into one view) is right for each, and the first node such a branch adds costs
 * time in proportion to the run's nodes, once; so does the first event folded into a view made by hand,
 * copied (`{ ...view }`) or parsed from JSON. An event for a
 * node the view has not seen (a viewer that joined late, a wire that lost events) creates it: a `call`
 * node from a call's own events, a `run` node from any other, with the nodes already seen under it as
 * its children. The root is the node whose `parentCallId` is `null`; until it shows, the first node whose
 * parent is unknown stands in for it, so a late viewer still ends with the run's own status. A start for
 * a node the view has (said twice by a wire that resent it, or after the events the node was made from)
 * keeps the one node and gives it the start's name, input and time. Unchanged nodes are shared between the old and the new view, so a renderer can compare nodes by identity.
 *
 * @param view - The view so far.
 * @param event - The next event.
 * @returns The view after it.
 *
 * @example
 * ```ts
 * import { emptyRunView, reduceRunView, type RunEvent } from '@rxagents/core';
 *
 * const base = { runId: 'r', parentCallId: 'root', at: 0 } as const;
 * const events: RunEvent[] = [
 *   { type: 'call-start', ...base, callId: 'c1', agentId: 'writer', input: 'story' },
 *   { type: 'text-delta', ...base, callId: 'c1', agentId: 'writer', delta: 'Once ' },
 *   { type: 'text-delta', ...base, callId: 'c1', agentId: 'writer', delta: 'upon' },
 * ];
 * const view = events.reduce(reduceRunView, emptyRunView);
 * console.log(view.nodes[0]?.text); // Once upon
 * ```
 */
export function reduceRunView(view: RunView, event: RunEvent): RunView {
  if (typeof view !== 'object' || view === null || typeof event !== 'object' || event === null) refuseReduce(view, event);
  switch (event.type) {
    case 'run-start':
      return start(view, treeOf(view), event, 'run', event.name, event.input);
    case 'call-start':
      return start(view, treeOf(view), event, 'call', event.agentId, event.input);
    case 'text-delta':
      return update(view, event, (node) => ({ ...node, text: node.text + event.delta }));
    case 'call-end':
      return update(view, event, (node) => ({ ...node, status: 'completed', durationMs: event.durationMs }));
    case 'call-error':
      return update(view, event, (node) => ({ ...node, status: statusOf(event.error), error: event.error, durationMs: event.durationMs }));
    case 'run-end':
      return update(view, event, (node) => {
        const ended: RunNode = { ...node, status: event.success ? 'completed' : statusOf(event.error), durationMs: event.durationMs };
        return withOptional(withOptional(ended, 'text', event.output), 'error', event.error);
      });
    case 'interrupt': {
      const started = start(view, treeOf(view), event, 'interrupt', event.action ?? 'input', event.question);
      return update(started, event, (node) => ({ ...node, interrupt: event }));
    }
    case 'interrupt-end':
      return update(view, event, (node) => {
        const ended: RunNode = { ...node, status: event.answer !== undefined ? 'completed' : statusOf(event.error), durationMs: event.durationMs };
        return withOptional(withOptional(ended, 'answer', event.answer), 'error', event.error);
      });
    case 'usage':
      return addUsage(view, event);
    case 'metrics':
      return viewOf({ ...fieldsOf(view), at: event.at, metrics: latestMetrics(view.metrics, event) }, treeOf(view));
    default:
      return update(view, event, (node) => ({ ...node, log: [...node.log, event] }));
  }
}

/**
 * Folds a run's events into a live {@link RunView}: one view per event, each a new immutable object.
 *
 * @remarks
 * `scan` over {@link reduceRunView}, starting from {@link emptyRunView}: each event costs the same
 * however many nodes the run has. Throttle it for a screen (`auditTime(16)` gives at most one render per
 * frame) without losing anything: every view contains all events before it. A view's `nodes` is built on
 * first read, in proportion to the run's nodes, so reading only the views a screen shows keeps a long
 * run's watching cheap.
 *
 * @param events$ - A run's events, for example from {@link observeRun}.
 * @returns The view after each event.
 *
 * @example
 * ```ts
 * import { from, last } from 'rxjs';
 * import { defineAgent, invoke$, observeRun, runView } from '@rxagents/core';
 *
 * const writer = defineAgent('writer', () => from(['Once ', 'upon ', 'a time']));
 * const events$ = observeRun('story', 'Tell a story', (run) => invoke$(writer, 'Tell a story', { run }));
 * runView(events$).pipe(last()).subscribe((view) => console.log(view.status, view.nodes[1]?.text)); // completed Once upon a time
 * ```
 */
export function runView(events$: Observable<RunEvent>): Observable<RunView> {
  if (!isObservable(events$)) throw new ConfigError('runView', [{ path: 'events$', rule: 'must be an Observable of run events', received: events$ }]);
  return events$.pipe(scan(reduceRunView, emptyRunView));
}

function start(view: RunView, tree: Tree<RunNode>, event: RunEventOf<'run-start'> | RunEventOf<'call-start'> | RunEventOf<'interrupt'>, kind: RunNode['kind'], name: string, input: string): RunView {
  const length = tree.list.length;
  const known = tree.index.find(event.callId, length);
  if (known >= 0) {
    // Said again (a wire that resent it), or after the node's own events (a view that made the node from
    // them): still one node, now with what its start says.
    const list = tree.list.set(known, { ...(tree.list.at(known) as RunNode), kind, name, input, startedAt: event.at });
    return viewOf({ ...fieldsOf(view), at: event.at }, { ...tree, list });
  }
  const late = tree.index.lateChildren(event.callId, length).map((at) => (tree.list.at(at) as RunNode).callId);
  const fresh: RunNode = { callId: event.callId, parentCallId: event.parentCallId, kind, name, input, text: '', status: 'running', startedAt: event.at, children: late, log: [] };
  // A later attempt of a call (a resumed durable run's): each of the two names the other.
  const previous = previousAttemptOf(event.callId);
  const previousIndex = previous === undefined ? -1 : tree.index.find(previous, length);
  const node: RunNode = previousIndex < 0 ? fresh : { ...fresh, supersedes: previous as string };
  let list = tree.list.push(node);
  if (previousIndex >= 0) list = list.set(previousIndex, { ...(tree.list.at(previousIndex) as RunNode), supersededBy: event.callId });
  const parentIndex = event.parentCallId === null ? -1 : tree.index.find(event.parentCallId, length);
  if (parentIndex >= 0) {
    const parent = tree.list.at(parentIndex) as RunNode;
    list = list.set(parentIndex, { ...parent, children: [...parent.children, event.callId] });
  }
  const next: Tree<RunNode> = { ...tree, list, index: tree.index.add(event.callId, event.parentCallId, parentIndex < 0, length) };
  // The node without a parent is the run's root. Until it shows (a viewer that joined late), the first
  // node whose parent is unknown stands in for it.
  const isRoot = event.parentCallId === null ? !hasRealRoot(view, tree) : view.rootId === null && parentIndex < 0;
  if (isRoot) return viewOf({ ...fieldsOf(view), runId: event.runId, status: 'running', rootId: event.callId, at: event.at }, next);
  return viewOf({ ...fieldsOf(view), runId: view.runId ?? event.runId, at: event.at }, next);
}

function hasRealRoot(view: RunView, tree: Tree<RunNode>): boolean {
  if (view.rootId === null) return false;
  const root = tree.list.at(tree.index.find(view.rootId, tree.list.length));
  return root !== undefined && root.parentCallId === null;
}

function update(view: RunView, event: RunEvent, change: (node: RunNode) => RunNode): RunView {
  let base = view;
  let tree = treeOf(view);
  let index = tree.index.find(event.callId, tree.list.length);
  if (index < 0) {
    // A node this view has not seen start (a late viewer): create it from what the event says. Only an
    // agent call's own events name an agent; every other event belongs to a run or a nested run.
    const kind = event.type === 'text-delta' || event.type === 'call-end' || event.type === 'call-error' || event.type === 'usage' ? 'call' : 'run';
    const name = kind === 'call' && 'agentId' in event ? event.agentId : event.callId;
    base = start(view, tree, { type: 'call-start', runId: event.runId, callId: event.callId, parentCallId: event.parentCallId, at: event.at, agentId: name, input: '' }, kind, name, '');
    tree = treeOf(base);
    index = tree.list.length - 1;
  }
  const node = change(tree.list.at(index) as RunNode);
  const isRoot = node.callId === base.rootId;
  const fields = fieldsOf(base);
  fields.status = isRoot ? node.status : base.status;
  fields.at = event.at;
  return viewOf(fields, { list: tree.list.set(index, node), index: tree.index, extras: tree.extras });
}

function statusOf(error: SerializedError | undefined): RunNodeStatus {
  if (error?.code === 'CALL_INTERRUPTED') return 'interrupted';
  return error?.name === 'AbortError' ? 'cancelled' : 'failed';
}

function withOptional<K extends 'text' | 'error' | 'answer'>(node: RunNode, key: K, value: RunNode[K] | undefined): RunNode {
  return value === undefined ? node : { ...node, [key]: value };
}

function addUsage(view: RunView, event: RunEventOf<'usage'>): RunView {
  const add = (usage: RunUsage): RunUsage => ({
    inputTokens: usage.inputTokens + (event.inputTokens ?? 0),
    outputTokens: usage.outputTokens + (event.outputTokens ?? 0),
    totalTokens: usage.totalTokens + (event.totalTokens ?? (event.inputTokens ?? 0) + (event.outputTokens ?? 0)),
  });
  const withNode = update(view, event, (node) => ({ ...node, usage: add(node.usage ?? NO_USAGE) }));
  return viewOf({ ...fieldsOf(withNode), usage: add(view.usage) }, treeOf(withNode));
}

function latestMetrics(metrics: readonly RunEventOf<'metrics'>[], event: RunEventOf<'metrics'>): readonly RunEventOf<'metrics'>[] {
  const index = metrics.findIndex((sample) => sample.source === event.source);
  if (index < 0) return [...metrics, event];
  const next = [...metrics];
  next[index] = event;
  return next;
}

function refuseReduce(view: unknown, event: unknown): never {
  const issues = [];
  if (typeof view !== 'object' || view === null) issues.push({ path: 'view', rule: 'must be a RunView (start from emptyRunView)', received: view });
  if (typeof event !== 'object' || event === null) issues.push({ path: 'event', rule: 'must be a run event', received: event });
  throw new ConfigError('reduceRunView', issues);
}
