import { ConfigError } from '../errors/ConfigError';
import type { RunNode, RunView } from './runView';

/**
 * A view's nodes as the run stands now: without the attempts a resumed durable run made again, nor
 * anything under them.
 *
 * @remarks
 * When a durable run resumes after its process stopped, the call the stop cut off is closed as
 * `interrupted` and runs again as its next attempt (`run/1#2` after `run/1`); what had ended under it is
 * said again under the new attempt. A view keeps both attempts (each names the other: `supersededBy`,
 * `supersedes`), so a tool that shows what happened can show the interrupted one; a screen that shows
 * the run folds it with this. The nodes are the view's own (compare them by identity), in start order;
 * their `children` still list the folded ids, so a tree that walks `children` skips a child whose
 * `supersededBy` is set. An interrupted attempt whose next attempt has not started yet is kept: it is
 * still the latest word on its call. Costs time in proportion to the view's nodes, like reading `nodes`.
 *
 * @param view - The view to fold.
 * @returns Its nodes, superseded attempts and what is under them left out.
 * @throws `ConfigError` when `view` is not a run view.
 *
 * @example
 * ```ts
 * import { emptyRunView, reduceRunView, withoutSupersededAttempts, type RunEvent } from '@rxagents/core';
 *
 * const base = { runId: 'r', parentCallId: 'root', at: 0 } as const;
 * const interrupted = { name: 'CallInterruptedError', message: 'the process stopped', code: 'CALL_INTERRUPTED', retryable: true };
 * const events: RunEvent[] = [
 *   { type: 'run-start', runId: 'r', callId: 'root', parentCallId: null, at: 0, name: 'billing', input: 'refund' },
 *   { type: 'call-start', ...base, callId: 'root/0', agentId: 'biller', input: 'refund' },
 *   { type: 'call-error', ...base, callId: 'root/0', agentId: 'biller', error: interrupted, durationMs: 5 },
 *   { type: 'call-start', ...base, callId: 'root/0#2', agentId: 'biller', input: 'refund' },
 * ];
 * const view = events.reduce(reduceRunView, emptyRunView);
 * console.log(view.nodes.map((node) => `${node.callId} ${node.status}`)); // [ 'root running', 'root/0 interrupted', 'root/0#2 running' ]
 * console.log(withoutSupersededAttempts(view).map((node) => node.callId)); // [ 'root', 'root/0#2' ]
 * ```
 */
export function withoutSupersededAttempts(view: RunView): readonly RunNode[] {
  if (typeof view !== 'object' || view === null || !Array.isArray(view.nodes)) {
    throw new ConfigError('withoutSupersededAttempts', [{ path: 'view', rule: 'must be a RunView', received: view }]);
  }
  const byId = new Map<string, RunNode>();
  for (const node of view.nodes) byId.set(node.callId, node);
  // Whether each node is folded, found once per node: a walk up stops at the first node already known.
  const folded = new Map<string, boolean>();
  const isFolded = (node: RunNode): boolean => {
    const path: RunNode[] = [];
    let answer = false;
    for (let at: RunNode | undefined = node; at !== undefined; ) {
      const known = folded.get(at.callId);
      if (known !== undefined) {
        answer = known;
        break;
      }
      path.push(at);
      if (at.supersededBy !== undefined) {
        answer = true;
        break;
      }
      // A parent loop (a damaged view) ends the walk: the nodes seen so far are kept.
      at = at.parentCallId === null || path.length > byId.size ? undefined : byId.get(at.parentCallId);
    }
    for (const each of path) folded.set(each.callId, answer);
    return answer;
  };
  return view.nodes.filter((node) => !isFolded(node));
}
