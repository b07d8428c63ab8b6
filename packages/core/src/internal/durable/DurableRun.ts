import type { SchedulerLike, Subscriber } from 'rxjs';
import { RunDivergenceError } from '../../errors/RunDivergenceError';
import type { RunContext } from '../../events/RunContext';
import { newRunId } from '../../events/ids';
import type { RunEvent, RunEventOf } from '../../events/RunEvent';
import { type JournalHost, type LiveCallPlace, type LiveInterruptPlace, type NodePlace, type RecordedInterruptEnd, RunJournal } from '../../events/RunJournal';
import { interruptBoard } from '../interrupts/InterruptBoard';
import { asksTheSame, type InterruptRequest } from '../interrupts/InterruptRequest';
import { abortError } from '../abortError';
import { CallTrace } from '../CallTrace';
import { describeCall, describeEvent, describeInterrupt, describeNode, describeRequest } from './describePlace';
import { InterruptHold } from './InterruptHold';
import type { JournalIndex, RecordedCall, RecordedInterrupt } from './JournalIndex';
import type { OwedPlace } from './OwedPlaces';
import type { JournalWriter } from './JournalWriter';
import { placeKeyOf } from './placeKeys';
import { rebuildCallError } from './rebuildCallError';
import { ReplayGate } from './ReplayGate';

/**
 * One durable run in this process: places its nodes, answers recorded calls from the journal, and filters
 * what the run says (events the journal already holds are neither emitted again nor journaled).
 */
export class DurableRun implements JournalHost {
  readonly root: RunJournal;
  /** Set once the run stopped (a divergence, a store failure, a lost lease, its reader left). */
  stopped = false;
  /** When the root node started, for the `run-end` of a run that stops. */
  rootStartedAt: number | undefined;
  /** The root's `run-end`, held until the journal has it. */
  rootEnd: RunEvent | undefined;
  readonly #seen = new Map<string, number>();
  #nodes: ReturnType<typeof nodesOf> | undefined;
  readonly #gate: ReplayGate;
  /** The reader's delivery: no new question before the journal holds it. */
  readonly #delivery: InterruptHold;

  constructor(
    private readonly runId: string,
    private readonly index: JournalIndex,
    private readonly writer: JournalWriter,
    /** Gives an event to the run's reader. */
    deliver: (event: RunEvent) => void,
    /** Stops the whole run with `error`. */
    private readonly stop: (error: RunDivergenceError) => void,
    scheduler: SchedulerLike,
    /** How long a recorded outcome may wait for its call to be made again before the run diverged. */
    stuckAfterMs: number,
  ) {
    this.root = new RunJournal(this, null, '');
    this.#delivery = new InterruptHold(writer, deliver, showJournaled);
    this.#gate = new ReplayGate(scheduler, stuckAfterMs, (turn) => {
      const recorded = index.ordered[turn] as RecordedCall | RecordedInterrupt;
      if ('event' in recorded) this.#diverge(placeKeyOf(recorded.callId), describeInterrupt(recorded.event), 'no interrupt: the resumed run did not ask this again');
      else this.#diverge(placeKeyOf(recorded.callId), describeCall(recorded.agentId, recorded.input, recorded.inputOmitted), 'no call: the resumed run did not make this call again');
    });
    this.rootStartedAt = index.rootStart?.at;
  }

  /** The root context's `emit`: every event of the run comes through here. */
  readonly emit = (event: RunEvent): void => {
    if (this.stopped) {
      // The run's teardown (calls cancelled because it stopped) is shown, not journaled; the root's
      // own end is the one the run stopped with. A finished run says nothing after its journal.
      if (!this.index.rootEnded && !(event.type === 'run-end' && event.parentCallId === null)) this.#delivery.say(event, 0);
      return;
    }
    if (event.type === 'run-end' && this.#leftUnmade(event)) return;
    const callId = event.callId;
    const recorded = this.index.perCallId.get(callId);
    if (recorded === undefined && this.index.rootEnded) {
      this.#diverge(placeKeyOf(callId), RUN_HAD_ENDED, describeEvent(event));
      return;
    }
    if (recorded !== undefined) {
      const seen = this.#seen.get(callId) ?? 0;
      const expected = recorded[seen] as RunEvent;
      if (expected.type !== event.type || (expected.type === 'run-start' && event.type === 'run-start' && expected.name !== event.name)) {
        this.#diverge(placeKeyOf(callId), describeEvent(expected), describeEvent(event));
        return;
      }
      if (seen + 1 === recorded.length) {
        this.index.perCallId.delete(callId);
        this.#seen.delete(callId);
      } else this.#seen.set(callId, seen + 1);
      // A question asked again where the journal holds it open: its reader had it with the journal.
      if (event.type === 'interrupt') showJournaled(event);
      return;
    }
    if (event.parentCallId === null) {
      if (event.type === 'run-start') this.rootStartedAt = event.at;
      else if (event.type === 'run-end') {
        this.rootEnd = event;
        this.writer.push(event);
        return;
      }
    }
    // Journaled first: a reader that leaves on this event (a `takeWhile`) stops the run after it.
    this.#delivery.say(event, this.writer.push(event));
  };

  enterNode(at: RunJournal, name: string): NodePlace {
    const segment = at.nextSegment();
    const callId = at.callId === null ? 'run' : `${at.callId}/${segment}`;
    const key = at.callId === null ? 'run' : `${at.placeKey}/${segment}`;
    this.index.owed.settle(key);
    const call = this.stopped ? undefined : this.index.calls.get(key);
    if (call !== undefined) this.#diverge(key, describeCall(call.agentId, call.input, call.inputOmitted), describeNode(name));
    const asked = this.stopped ? undefined : this.index.interrupts.get(key);
    if (asked !== undefined) this.#diverge(key, describeInterrupt(asked.event), describeNode(name));
    if (!this.stopped && this.index.rootEnded && !this.index.nodeKeys.has(key)) this.#diverge(key, RUN_HAD_ENDED, describeNode(name));
    return { callId, journal: at.child(callId, key) };
  }

  enterCall(run: RunContext, at: RunJournal, agentId: string, input: string, subscriber: Subscriber<string>): LiveCallPlace | undefined {
    // A stopped run calls no agent: its calls wait for the teardown.
    if (this.stopped) return undefined;
    const { key, path } = placeUnder(at);
    this.index.owed.settle(key);
    const recorded = this.index.calls.get(key);
    if (recorded === undefined) {
      if (this.index.nodeKeys.has(key)) {
        this.#diverge(key, 'a nested run', describeCall(agentId, input, false));
        return undefined;
      }
      const asked = this.index.interrupts.get(key);
      if (asked !== undefined) {
        this.#diverge(key, describeInterrupt(asked.event), describeCall(agentId, input, false));
        return undefined;
      }
    } else {
      if (recorded.agentId !== agentId || (!recorded.inputOmitted && recorded.input !== input)) {
        this.#diverge(key, describeCall(recorded.agentId, recorded.input, recorded.inputOmitted), describeCall(agentId, input, false));
        return undefined;
      }
      if (recorded.end !== 'interrupted') {
        const callId = recorded.attempt === 1 ? path : `${path}#${recorded.attempt}`;
        // Under a node that runs again as a new attempt, the replayed call is said again under it, so
        // the new attempt's tree is whole; elsewhere its events are the recorded ones.
        if (callId === recorded.callId) this.#replay(subscriber, recorded, undefined);
        else this.#replay(subscriber, recorded, new CallTrace(run, agentId, input, { callId, journal: at.child(callId, key), idempotencyKey: `${this.runId}:${key}` }));
        return undefined;
      }
    }
    // A finished run is never extended: no agent is called on it, not even one its journal shows cut off.
    if (this.index.rootEnded) {
      this.#diverge(key, recorded === undefined ? RUN_HAD_ENDED : `${describeCall(recorded.agentId, recorded.input, recorded.inputOmitted)}, never finished`, describeCall(agentId, input, false));
      return undefined;
    }
    const attempt = recorded === undefined ? 1 : recorded.attempt + 1;
    const callId = attempt === 1 ? path : `${path}#${attempt}`;
    return { callId, journal: at.child(callId, key), idempotencyKey: `${this.runId}:${key}` };
  }

  enterInterrupt(at: RunJournal, request: InterruptRequest, replayed: (end: RecordedInterruptEnd) => void): LiveInterruptPlace | undefined {
    if (this.stopped) return undefined;
    const { key, path } = placeUnder(at);
    this.index.owed.settle(key);
    const place = this.#placeInterrupt(key, path, request, replayed);
    // Nobody is asked anything on a finished run, not even a question its journal shows unanswered.
    if (place !== undefined && this.index.rootEnded) {
      const asked = this.index.interrupts.get(key);
      this.#diverge(key, asked === undefined ? RUN_HAD_ENDED : `${describeInterrupt(asked.event)}, never answered`, describeRequest(request));
      return undefined;
    }
    return place;
  }

  #placeInterrupt(key: string, callId: string, request: InterruptRequest, replayed: (end: RecordedInterruptEnd) => void): LiveInterruptPlace | undefined {
    const asked = this.index.interrupts.get(key);
    if (asked === undefined) {
      const call = this.index.calls.get(key);
      if (call !== undefined || this.index.nodeKeys.has(key)) {
        this.#diverge(key, call === undefined ? 'a nested run' : describeCall(call.agentId, call.input, call.inputOmitted), describeRequest(request));
        return undefined;
      }
      return { callId, interruptId: newRunId() };
    }
    const same = asksTheSame(asked.event, request);
    const sameNode = asked.callId === callId;
    // Closed with its interrupted call: asked again under the call's new attempt, under the same id when
    // it asks the same (the person's page still holds that id), as a new question otherwise.
    if (asked.end === 'interrupted') return { callId, interruptId: same ? asked.event.interruptId : newRunId() };
    // An answer (an outcome) is never applied to another question; nor is a waiting question changed
    // under a node that goes on (its recorded event stands).
    if (!same && (asked.end !== undefined || sameNode)) {
      this.#diverge(key, describeInterrupt(asked.event), describeRequest(request));
      return undefined;
    }
    if (asked.end === undefined) return { callId, interruptId: asked.event.interruptId };
    if (!same) return { callId, interruptId: newRunId() };
    if (sameNode) this.index.perCallId.delete(asked.callId);
    const end: RecordedInterruptEnd = { answer: asked.answer, hasAnswer: asked.hasAnswer, error: asked.error, resay: sameNode ? undefined : { callId, interruptId: asked.event.interruptId } };
    this.#gate.release(asked.order, () => replayed(end));
    return undefined;
  }

  /** Nothing more is answered from the journal (the run ended or stopped). */
  close(): void {
    this.#gate.close();
  }

  // The agent is not called: its recorded chunks, then its recorded end, at its turn (see ReplayGate). A call
  // that was cancelled gives its chunks and then waits for the same cancellation; one the journal shows
  // running (in a run that already ended) waits too.
  #replay(subscriber: Subscriber<string>, recorded: RecordedCall, trace: CallTrace | undefined): void {
    if (trace === undefined) this.index.perCallId.delete(recorded.callId);
    else subscriber.add(() => trace.fail(abortError(`call to agent '${trace.agentId}' was cancelled`)));
    this.#gate.release(recorded.order, () => {
      // What happened inside it (an interrupt it asked, a nested run) is said again under the new attempt too.
      if (trace !== undefined) for (const event of this.#subtree(recorded.callId, trace.callId)) trace.child.emit(event);
      for (const delta of recorded.deltas) {
        if (subscriber.closed) return;
        trace?.delta(delta);
        subscriber.next(delta);
      }
      if (subscriber.closed) return;
      if (recorded.end === 'ended') {
        trace?.end();
        subscriber.complete();
      } else if (recorded.end === 'failed') {
        const error = rebuildCallError(recorded.agentId, recorded.error);
        trace?.fail(error);
        subscriber.error(error);
      }
    });
  }

  /** The recorded events under `callId` in journal order, their ids moved under `nextCallId`. */
  #subtree(callId: string, nextCallId: string): RunEvent[] {
    const nodes = (this.#nodes ??= nodesOf(this.index.events));
    const seqs: number[] = [];
    const stack = [...(nodes.children.get(callId) ?? [])];
    // A damaged journal whose parents loop is still read once through.
    const visited = new Set<string>([callId]);
    while (stack.length > 0) {
      const node = stack.pop() as string;
      if (visited.has(node)) continue;
      visited.add(node);
      seqs.push(...(nodes.events.get(node) ?? []));
      stack.push(...(nodes.children.get(node) ?? []));
    }
    if (seqs.length === 0) return [];
    const prefix = `${callId}/`;
    const move = (id: string): string => (id === callId ? nextCallId : id.startsWith(prefix) ? `${nextCallId}/${id.slice(prefix.length)}` : id);
    return seqs.sort((x, y) => x - y).map((seq) => {
      const event = this.index.events[seq] as RunEvent;
      return { ...event, callId: move(event.callId), parentCallId: event.parentCallId === null ? null : move(event.parentCallId) };
    });
  }

  // A node ends (the root: the body ended): every place it owes the journal (see OwedPlaces) must have
  // been reached, or it would end on an outcome the journal contradicts. The first in journal order is named.
  #leftUnmade(end: RunEvent): boolean {
    const root = end.parentCallId === null;
    const owed = root ? this.index.owed.first() : this.index.owed.firstUnder(placeKeyOf(end.callId));
    if (owed === undefined) return false;
    const [key, place] = owed;
    const what = root ? 'the run' : `the nested run at "${placeKeyOf(end.callId)}"`;
    this.#diverge(key, this.#describeOwed(key, place), `${what} ended without ${ENDED_WITHOUT[place.kind]}`);
    return true;
  }

  #describeOwed(key: string, place: OwedPlace): string {
    if (place.kind === 'node') return describeNode(place.name);
    if (place.kind === 'interrupt') return describeInterrupt((this.index.interrupts.get(key) as RecordedInterrupt).event);
    const call = this.index.calls.get(key) as RecordedCall;
    return describeCall(call.agentId, call.input, call.inputOmitted);
  }

  #diverge(placeKey: string, recorded: string, live: string): void {
    this.stop(new RunDivergenceError(this.runId, placeKey, recorded, live));
  }
}

/** Lists a durable run's question on the board: only the journal's questions are answered from outside. */
function showJournaled(event: RunEventOf<'interrupt'>): void {
  interruptBoard.show(event.runId, event.interruptId);
}

/** What a finished journal holds at any place it does not reach. */
const RUN_HAD_ENDED = 'nothing more: the run had ended';

const ENDED_WITHOUT: Record<OwedPlace['kind'], string> = {
  call: 'making this call',
  interrupt: 'asking this',
  node: 'entering this nested run',
};

/** The journal's nodes: each node's events (by position) and the nodes under each node. */
function nodesOf(events: readonly RunEvent[]): { events: Map<string, number[]>; children: Map<string, Set<string>> } {
  const own = new Map<string, number[]>();
  const children = new Map<string, Set<string>>();
  for (let seq = 0; seq < events.length; seq++) {
    const { callId, parentCallId } = events[seq] as RunEvent;
    const list = own.get(callId);
    if (list === undefined) own.set(callId, [seq]);
    else list.push(seq);
    if (parentCallId === null) continue;
    let under = children.get(parentCallId);
    if (under === undefined) children.set(parentCallId, (under = new Set()));
    under.add(callId);
  }
  return { events: own, children };
}

/** The next child place under `at` (a call or an interrupt): its place key, and its id before any attempt mark. */
function placeUnder(at: RunJournal): { readonly key: string; readonly path: string } {
  const segment = at.nextSegment();
  return { key: `${at.placeKey}/${segment}`, path: `${at.callId ?? 'run'}/${segment}` };
}
