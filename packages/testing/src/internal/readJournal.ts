import { type ConfigIssue, MAX_DELAY_MS, RunEventSchema, type RunEvent, type RunRecord, type SerializedError } from '@rxagents/core';
import { z } from 'zod';
import type { JournalCall, JournalCallEnd, JournalDelta } from '../JournalCall';
import { issuesAt } from './issuesAt';

/** @internal A checked journal: its run, its root, its events, and every agent's calls in `call-start` order. */
export interface Journal {
  readonly runId: string;
  readonly root: { readonly name: string; readonly input: string; readonly inputOmitted: boolean };
  readonly events: readonly RunEvent[];
  readonly calls: ReadonlyMap<string, readonly JournalCall[]>;
}

/** A journal with this many issues stops being read: the first ones say what is wrong. */
const MAX_ISSUES = 20;

const ENTRY = 'must be a run event or a run record { seq, event }';

const RecordSchema = z.strictObject({ seq: z.number({ error: 'must be a number' }).int().nonnegative(), event: RunEventSchema });

interface OpenCall {
  readonly start: RunEvent & { type: 'call-start' };
  readonly deltas: JournalDelta[];
  last: number;
  end: JournalCallEnd | undefined;
}

/**
 * @internal Reads `entries` (run events or run records, in journal order) as a journal, or returns what is
 * wrong with them: an entry that is neither, an event `RunEventSchema` refuses, records out of sequence, a
 * first event that is not the root `run-start`, an event of another run, and call events that do not
 * follow their own `call-start` (unknown call, other agent, after its end, earlier than the event before).
 */
export function readJournal(entries: readonly unknown[]): Journal | ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  if (entries.length === 0) return [{ path: 'journal', rule: 'must hold at least the root run-start', received: entries }];
  const events: RunEvent[] = [];
  const open = new Map<string, OpenCall>();
  const order: OpenCall[] = [];
  let lastSeq: number | undefined;
  let sound = true;
  for (let index = 0; index < entries.length && issues.length < MAX_ISSUES; index++) {
    const path = `journal.${index}`;
    const entry: unknown = entries[index];
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      issues.push({ path, rule: ENTRY, received: entry });
      sound = false;
      continue;
    }
    let event: RunEvent;
    let eventPath = path;
    if ('event' in entry && !('type' in entry)) {
      const { seq } = entry as { seq?: unknown };
      if (typeof seq === 'number') {
        if (lastSeq !== undefined && seq !== lastSeq + 1) issues.push({ path: `${path}.seq`, rule: `must be ${lastSeq + 1}, one more than the record before (a record is missing or out of order)`, received: seq });
        lastSeq = seq;
      } else if (lastSeq !== undefined) lastSeq++;
      const parsed = RecordSchema.safeParse(entry);
      if (!parsed.success) {
        issues.push(...issuesAt(RecordSchema, entry, path));
        sound = false;
        continue;
      }
      event = (parsed.data as RunRecord).event;
      eventPath = `${path}.event`;
    } else {
      const parsed = RunEventSchema.safeParse(entry);
      if (!parsed.success) {
        issues.push(...issuesAt(RunEventSchema, entry, path));
        sound = false;
        continue;
      }
      event = parsed.data;
    }
    // After an entry that is not an event, the order of calls cannot be followed: only entries are checked.
    if (!sound) continue;
    const root = events[0];
    if (root === undefined) {
      if (event.type !== 'run-start' || event.parentCallId !== null) {
        issues.push({ path: eventPath, rule: 'must be the root run-start (type run-start, parentCallId null)', received: event });
        sound = false;
        continue;
      }
    } else {
      issues.push(...structureIssues(event, eventPath, root, open, order));
    }
    events.push(event);
  }
  if (issues.length > 0) return issues;
  const root = events[0] as RunEvent & { type: 'run-start' };
  const calls = new Map<string, JournalCall[]>();
  for (const call of madeByTheCode(order)) {
    const { start } = call;
    const list = calls.get(start.agentId) ?? [];
    if (list.length === 0) calls.set(start.agentId, list);
    list.push({
      agentId: start.agentId,
      callId: start.callId,
      parentCallId: start.parentCallId,
      input: start.input,
      inputOmitted: start.inputOmitted === true,
      at: start.at,
      deltas: call.deltas,
      end: call.end ?? { kind: 'unfinished' },
    });
  }
  return { runId: root.runId, root: { name: root.name, input: root.input, inputOmitted: root.inputOmitted === true }, events, calls };
}

/** A resumed run's attempt n of a place ends its callId with `#n`; the place key is the callId without them. */
const ATTEMPT = /#\d+(?=\/|$)/g;

/**
 * The calls the run's code made, in `call-start` order: a call interrupted by a stopped process
 * (`CALL_INTERRUPTED`) that a later attempt at the same place ran again is left out, since the code, run
 * again in one process, makes that call once and gets the later attempt's answer.
 */
function madeByTheCode(order: readonly OpenCall[]): OpenCall[] {
  const later = new Set<string>();
  const kept: OpenCall[] = [];
  for (let index = order.length - 1; index >= 0; index--) {
    const call = order[index] as OpenCall;
    const place = call.start.callId.replace(ATTEMPT, '');
    if (call.end?.kind !== 'interrupted' || !later.has(place)) kept.push(call);
    later.add(place);
  }
  return kept.reverse();
}

function structureIssues(event: RunEvent, path: string, root: RunEvent, open: Map<string, OpenCall>, order: OpenCall[]): ConfigIssue[] {
  if (event.runId !== root.runId) return [{ path: `${path}.runId`, rule: `must be the root run-start's run id ${JSON.stringify(root.runId)} (a journal holds one run)`, received: event.runId }];
  if (event.type === 'run-start' && event.parentCallId === null) return [{ path: `${path}.parentCallId`, rule: 'must not be null: a journal has one root run-start, its first event', received: null }];
  if (event.type === 'call-start') {
    if (open.has(event.callId)) return [{ path: `${path}.callId`, rule: 'must not repeat the callId of an earlier call-start', received: event.callId }];
    const call: OpenCall = { start: event, deltas: [], last: event.at, end: undefined };
    open.set(event.callId, call);
    order.push(call);
    return [];
  }
  if (event.type !== 'text-delta' && event.type !== 'call-end' && event.type !== 'call-error') return [];
  const call = open.get(event.callId);
  if (call === undefined) return [{ path: `${path}.callId`, rule: `must be the callId of an earlier call-start (a ${event.type} belongs to its call)`, received: event.callId }];
  const { start } = call;
  if (event.agentId !== start.agentId) return [{ path: `${path}.agentId`, rule: `must be ${JSON.stringify(start.agentId)}, the agentId of its call-start`, received: event.agentId }];
  if (call.end !== undefined) return [{ path: path, rule: `must not follow the end of its call ${JSON.stringify(event.callId)}`, received: event.type }];
  if (!(event.at >= call.last)) return [{ path: `${path}.at`, rule: `must not be earlier than the event before it in its call (${call.last})`, received: event.at }];
  if (event.at - call.last > MAX_DELAY_MS) return [{ path: `${path}.at`, rule: `must be at most ${MAX_DELAY_MS} ms after the event before it in its call (${call.last}), the longest a timer can wait`, received: event.at }];
  call.last = event.at;
  const afterMs = event.at - start.at;
  if (event.type === 'text-delta') call.deltas.push({ delta: event.delta, afterMs });
  else if (event.type === 'call-end') call.end = { kind: 'completed', afterMs };
  else call.end = { kind: failureKind(event.error), afterMs, error: event.error };
  return [];
}

function failureKind(error: SerializedError): 'failed' | 'cancelled' | 'interrupted' {
  if (error.name === 'AbortError') return 'cancelled';
  return error.code === 'CALL_INTERRUPTED' ? 'interrupted' : 'failed';
}
