import { CallInterruptedError } from '../../errors/CallInterruptedError';
import type { RunEvent, RunEventOf } from '../../events/RunEvent';
import { type SerializedError, serializeError } from '../../events/SerializedError';
import { OwedPlaces } from './OwedPlaces';
import { attemptOf, placeKeyOf } from './placeKeys';

/** How a recorded call ended: `undefined` while the journal shows it running. */
export type RecordedEnd = 'ended' | 'failed' | 'cancelled' | 'interrupted' | undefined;

/** The latest recorded attempt of a call at one place. */
export interface RecordedCall {
  readonly callId: string;
  readonly parentCallId: string | null;
  readonly attempt: number;
  readonly agentId: string;
  readonly input: string;
  readonly inputOmitted: boolean;
  readonly startedAt: number;
  readonly deltas: string[];
  end: RecordedEnd;
  error: SerializedError | undefined;
  /** Where its end is in the journal. */
  endSeq: number;
  /**
   * Its outcome's turn among the outcomes a resumed run hands out in recorded order (see `ReplayGate`);
   * `undefined` for a call under another call (under one that ended it is never reached again; under one
   * that runs again, the new attempt may make its calls differently).
   */
  order: number | undefined;
}

/** The latest recorded asking of an interrupt at one place. */
export interface RecordedInterrupt {
  readonly callId: string;
  readonly parentCallId: string | null;
  readonly event: RunEventOf<'interrupt'>;
  /** `interrupted` when its process stopped under a call that runs again; `undefined` while it waits. */
  end: 'answered' | 'failed' | 'cancelled' | 'interrupted' | undefined;
  /** The answer it was closed with (a person's, or the refusal a timeout stands for). */
  answer: unknown;
  hasAnswer: boolean;
  error: SerializedError | undefined;
  endSeq: number;
  /** As for {@link RecordedCall.order}. */
  order: number | undefined;
}

interface RecordedNode {
  readonly parentCallId: string | null;
  readonly startedAt: number;
  ended: boolean;
}

/**
 * A run's journal, read for resuming it: every call's latest attempt by place key, the nested runs'
 * places, each node's recorded events (for the emission filter), and the closing events that say what
 * became of the calls that were in flight when the journal stopped.
 */
export class JournalIndex {
  /** The journal's events, then the closing events. */
  readonly events: RunEvent[];
  readonly rootStart: RunEventOf<'run-start'> | undefined;
  readonly rootEnded: boolean;
  /** The latest attempt of each call, by place key. */
  readonly calls = new Map<string, RecordedCall>();
  /** The place keys of nested runs. */
  readonly nodeKeys = new Set<string>();
  /** Each node's recorded events, by call id. */
  readonly perCallId = new Map<string, RunEvent[]>();
  /** The latest asking of each interrupt, by place key. */
  readonly interrupts = new Map<string, RecordedInterrupt>();
  /** The calls and interrupts whose outcomes a resumed run hands out in recorded order, by their turn. */
  readonly ordered: (RecordedCall | RecordedInterrupt)[] = [];
  /** What resuming appends first: a `call-error` per interrupted call, a `run-end` per nested run left open under one. */
  readonly closing: RunEvent[] = [];
  /** The places the resumed run must reach again before the node above them ends. */
  readonly owed = new OwedPlaces();

  constructor(runId: string, events: RunEvent[], now: number) {
    this.events = events;
    const byCallId = new Map<string, RecordedCall>();
    const nodes = new Map<string, RecordedNode>();
    const byInterrupt = new Map<string, RecordedInterrupt>();
    let rootStart: RunEventOf<'run-start'> | undefined;
    let rootEnded = false;
    const isCall = (callId: string): boolean => byCallId.has(callId);
    for (let seq = 0; seq < events.length; seq++) {
      const event = events[seq] as RunEvent;
      this.#remember(event);
      this.owed.see(event, isCall);
      switch (event.type) {
        case 'run-start':
          if (event.parentCallId === null) rootStart ??= event;
          nodes.set(event.callId, { parentCallId: event.parentCallId, startedAt: event.at, ended: false });
          this.nodeKeys.add(placeKeyOf(event.callId));
          break;
        case 'run-end': {
          const node = nodes.get(event.callId);
          if (node !== undefined) node.ended = true;
          if (event.parentCallId === null) rootEnded = true;
          break;
        }
        case 'call-start': {
          const call: RecordedCall = {
            callId: event.callId,
            parentCallId: event.parentCallId,
            attempt: attemptOf(event.callId),
            agentId: event.agentId,
            input: event.input,
            inputOmitted: event.inputOmitted === true,
            startedAt: event.at,
            deltas: [],
            end: undefined,
            error: undefined,
            endSeq: -1,
            order: undefined,
          };
          byCallId.set(event.callId, call);
          const key = placeKeyOf(event.callId);
          // A place whose call ended keeps that outcome: a call is never run again once it ended, only
          // said again (under a node that runs again), and a journal cut while it was said again must
          // not make it look unfinished.
          const latest = this.calls.get(key);
          if (latest === undefined || (!hasOutcome(latest) && latest.attempt <= call.attempt)) this.calls.set(key, call);
          break;
        }
        case 'text-delta':
          byCallId.get(event.callId)?.deltas.push(event.delta);
          break;
        case 'interrupt': {
          const asked: RecordedInterrupt = { callId: event.callId, parentCallId: event.parentCallId, event, end: undefined, answer: undefined, hasAnswer: false, error: undefined, endSeq: -1, order: undefined };
          byInterrupt.set(event.callId, asked);
          const key = placeKeyOf(event.callId);
          const latest = this.interrupts.get(key);
          // As for calls: a place whose interrupt closed by itself keeps that outcome.
          if (latest === undefined || latest.end === undefined || latest.end === 'interrupted') this.interrupts.set(key, asked);
          break;
        }
        case 'interrupt-end': {
          const asked = byInterrupt.get(event.callId);
          if (asked !== undefined) {
            asked.end = event.error?.code === 'CALL_INTERRUPTED' ? 'interrupted' : event.answer !== undefined ? 'answered' : event.error?.name === 'AbortError' ? 'cancelled' : 'failed';
            asked.hasAnswer = event.answer !== undefined;
            asked.answer = event.answer;
            asked.error = event.error;
            asked.endSeq = seq;
          }
          break;
        }
        case 'call-end': {
          const call = byCallId.get(event.callId);
          if (call !== undefined) {
            call.end = 'ended';
            call.endSeq = seq;
          }
          break;
        }
        case 'call-error': {
          const call = byCallId.get(event.callId);
          if (call !== undefined) {
            call.end = event.error.code === 'CALL_INTERRUPTED' ? 'interrupted' : event.error.name === 'AbortError' ? 'cancelled' : 'failed';
            call.error = event.error;
            call.endSeq = seq;
          }
          break;
        }
        default:
          break;
      }
    }
    this.rootStart = rootStart;
    this.rootEnded = rootEnded;
    if (!rootEnded) this.#close(runId, byCallId, nodes, byInterrupt, now);
    this.#order(byCallId, nodes);
    for (const [key, call] of this.calls) if (call.end === 'cancelled' && call.deltas.length === 0) this.owed.settle(key);
    for (const [key, asked] of this.interrupts) if (asked.end === 'cancelled') this.owed.settle(key);
  }

  // Only calls with no call above them are handed out in recorded order: a replayed call's subtree is
  // never reached again, and a call that runs again may make its calls differently.
  #order(byCallId: Map<string, RecordedCall>, nodes: Map<string, RecordedNode>): void {
    const ended: (RecordedCall | RecordedInterrupt)[] = [];
    for (const call of this.calls.values()) if (call.end !== undefined && call.end !== 'interrupted') ended.push(call);
    for (const asked of this.interrupts.values()) if (asked.end !== undefined && asked.end !== 'interrupted') ended.push(asked);
    for (const call of ended) {
      let underCall = false;
      for (let above = call.parentCallId, steps = 0; above !== null && steps < MAX_DEPTH; steps++) {
        if (byCallId.has(above)) {
          underCall = true;
          break;
        }
        above = nodes.get(above)?.parentCallId ?? null;
      }
      if (!underCall) this.ordered.push(call);
    }
    this.ordered.sort((a, b) => a.endSeq - b.endSeq);
    for (let turn = 0; turn < this.ordered.length; turn++) (this.ordered[turn] as RecordedCall).order = turn;
  }

  #remember(event: RunEvent): void {
    const recorded = this.perCallId.get(event.callId);
    if (recorded === undefined) this.perCallId.set(event.callId, [event]);
    else recorded.push(event);
  }

  // Every call without an end was in flight: it is closed as interrupted, and so is every nested run left
  // open under one (deepest first, so a view closes children before their parents).
  #close(runId: string, byCallId: Map<string, RecordedCall>, nodes: Map<string, RecordedNode>, byInterrupt: Map<string, RecordedInterrupt>, now: number): void {
    const parentOf = (callId: string): string | null => byCallId.get(callId)?.parentCallId ?? nodes.get(callId)?.parentCallId ?? null;
    const interrupted = new Map<string, CallInterruptedError>();
    for (const call of byCallId.values()) if (call.end === undefined) interrupted.set(call.callId, new CallInterruptedError(runId, call.callId, call.agentId));
    if (interrupted.size === 0) return;
    const closing: { callId: string; depth: number; error: CallInterruptedError }[] = [];
    for (const callId of interrupted.keys()) closing.push({ callId, depth: depthOf(callId, parentOf), error: interrupted.get(callId) as CallInterruptedError });
    const underInterrupted = (callId: string, parentCallId: string | null): void => {
      for (let above = parentCallId, steps = 0; above !== null && steps < MAX_DEPTH; above = parentOf(above), steps++) {
        const error = interrupted.get(above);
        if (error !== undefined) {
          closing.push({ callId, depth: depthOf(parentCallId, parentOf) + 1, error });
          break;
        }
      }
    };
    for (const [callId, node] of nodes) if (!node.ended) underInterrupted(callId, node.parentCallId);
    // A question asked under an interrupted call closes with it; the call asks it again when it runs again.
    for (const [callId, asked] of byInterrupt) if (asked.end === undefined) underInterrupted(callId, asked.parentCallId);
    closing.sort((a, b) => b.depth - a.depth);
    for (const { callId, error } of closing) {
      const call = byCallId.get(callId);
      const asked = byInterrupt.get(callId);
      const serialized = serializeError(error);
      let event: RunEvent;
      if (asked !== undefined) {
        asked.end = 'interrupted';
        asked.error = serialized;
        const { interruptId, parentCallId } = asked.event;
        event = { type: 'interrupt-end', runId, callId, parentCallId, at: now, interruptId, answered: false, error: serialized, durationMs: Math.max(0, now - asked.event.at) };
      } else if (call !== undefined) {
        call.end = 'interrupted';
        call.error = serialized;
        event = { type: 'call-error', runId, callId, parentCallId: call.parentCallId, at: now, agentId: call.agentId, error: serialized, durationMs: Math.max(0, now - call.startedAt) };
      } else {
        const node = nodes.get(callId) as RecordedNode;
        node.ended = true;
        event = { type: 'run-end', runId, callId, parentCallId: node.parentCallId, at: now, success: false, error: serialized, durationMs: Math.max(0, now - node.startedAt) };
      }
      this.closing.push(event);
      this.events.push(event);
      this.#remember(event);
    }
  }
}

/** Whether a recorded call ended by itself (completed, failed or was cancelled), not by a stopped process. */
function hasOutcome(call: RecordedCall): boolean {
  return call.end !== undefined && call.end !== 'interrupted';
}

/** Deeper than any real run nests: a journal whose parents loop (a damaged one) is still read to its end. */
const MAX_DEPTH = 100_000;

function depthOf(callId: string | null, parentOf: (callId: string) => string | null): number {
  if (callId === null) return -1;
  let depth = 0;
  for (let above = parentOf(callId); above !== null && depth < MAX_DEPTH; above = parentOf(above)) depth++;
  return depth;
}
