import type { RunEvent, RunEventOf } from './RunEvent';
import type { SerializedError } from './SerializedError';

/** What an end event needs of a node's start. */
interface OpenNode {
  readonly kind: 'run' | 'call' | 'interrupt';
  readonly runId: string;
  readonly callId: string;
  readonly parentCallId: string | null;
  readonly agentId: string;
  readonly startedAt: number;
}

/**
 * The nodes of a run's events that started and have not ended yet, and the events that end them all:
 * what a transport says when it cuts a run off, so that no reader shows a node running forever.
 *
 * @remarks
 * {@link OpenRunNodes.track} notes each event as it passes (a `run-start`, `call-start` or `interrupt`
 * opens its node, a `run-end`, `call-end`, `call-error` or `interrupt-end` closes it; every other event
 * only moves the clock). It costs
 * one `Map` operation per start and end and nothing else, whatever the number of deltas.
 * {@link OpenRunNodes.end} gives, innermost first (the reverse of the order they started, so a child always
 * ends before its parent), a `call-error` for every open agent call and a `run-end` with `success: false`
 * for every open run (an `interrupt-end` for every open interrupt), each with the given error, and forgets them. A `runView` then shows every node
 * ended: `cancelled` for an error named `AbortError`, `failed` for any other. Only nodes whose start it
 * saw are known to it.
 *
 * @example
 * ```ts
 * import { OpenRunNodes } from '@rxagents/core';
 *
 * const open = new OpenRunNodes();
 * open.track({ type: 'run-start', runId: 'r', callId: 'root', parentCallId: null, at: 0, name: 'story', input: 'go' });
 * open.track({ type: 'call-start', runId: 'r', callId: 'c1', parentCallId: 'root', at: 1, agentId: 'writer', input: 'go' });
 * const ends = open.end({ name: 'AbortError', message: 'The run was cancelled' });
 * console.log(ends.map((event) => event.type)); // [ 'call-error', 'run-end' ]
 * ```
 */
export class OpenRunNodes {
  /** In the order they started (a `Map` keeps insertion order). */
  readonly #open = new Map<string, OpenNode>();
  #latest: number | undefined;

  /** How many nodes are open. */
  get size(): number {
    return this.#open.size;
  }

  /** The latest `at` of the events tracked, `undefined` before the first. */
  get latestAt(): number | undefined {
    return this.#latest;
  }

  /** Notes one event of the run. */
  track(event: RunEvent): void {
    if (this.#latest === undefined || event.at > this.#latest) this.#latest = event.at;
    switch (event.type) {
      case 'run-start':
        this.#open.set(event.callId, { kind: 'run', runId: event.runId, callId: event.callId, parentCallId: event.parentCallId, agentId: '', startedAt: event.at });
        break;
      case 'call-start':
        this.#open.set(event.callId, { kind: 'call', runId: event.runId, callId: event.callId, parentCallId: event.parentCallId, agentId: event.agentId, startedAt: event.at });
        break;
      case 'interrupt':
        this.#open.set(event.callId, { kind: 'interrupt', runId: event.runId, callId: event.callId, parentCallId: event.parentCallId, agentId: event.interruptId, startedAt: event.at });
        break;
      case 'run-end':
      case 'call-end':
      case 'call-error':
      case 'interrupt-end':
        this.#open.delete(event.callId);
        break;
      default:
    }
  }

  /**
   * The events that end every open node with `error`, innermost first, at time `at` (default: the
   * latest `at` tracked, so the times a reader sees never go back); the nodes are forgotten.
   */
  end(error: SerializedError, at: number = this.#latest ?? 0): RunEvent[] {
    const nodes = [...this.#open.values()].reverse();
    this.#open.clear();
    return nodes.map((node) => endOf(node, error, at));
  }
}

function endOf(node: OpenNode, error: SerializedError, at: number): RunEventOf<'call-error'> | RunEventOf<'run-end'> | RunEventOf<'interrupt-end'> {
  const { runId, callId, parentCallId } = node;
  const durationMs = Math.max(0, at - node.startedAt);
  if (node.kind === 'interrupt') return { type: 'interrupt-end', runId, callId, parentCallId, at, interruptId: node.agentId, answered: false, error, durationMs };
  if (node.kind === 'call') return { type: 'call-error', runId, callId, parentCallId, at, agentId: node.agentId, error, durationMs };
  return { type: 'run-end', runId, callId, parentCallId, at, success: false, error, durationMs };
}
