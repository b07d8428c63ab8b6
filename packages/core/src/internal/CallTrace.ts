import type { SchedulerLike } from 'rxjs';
import { newRunId } from '../events/ids';
import type { RunContext } from '../events/RunContext';
import type { LiveCallPlace } from '../events/RunJournal';
import { serializeError } from '../events/SerializedError';
import { MAX_DELTA_LENGTH, MAX_TEXT_FIELD_LENGTH } from '../limits';
import { RunScope } from './RunScope';
import { fitsAsJson, splitText } from './splitText';

/**
 * One call's node in a run: `call-start` when made, a `text-delta` per chunk (several for a chunk longer
 * than `MAX_DELTA_LENGTH`), then `call-end` or `call-error`.
 */
export class CallTrace {
  readonly runId: string;
  readonly callId: string;
  readonly parentCallId: string | null;
  readonly agentId: string;
  readonly scheduler: SchedulerLike;
  /** Closed once this call, or a node above it, ended: nothing more is said of it. */
  readonly scope: RunScope;
  readonly startedAt: number;
  /** The context the agent gets as `ChatOptions.run`: nested under this call. */
  readonly child: RunContext;
  ended = false;

  /** `place`: the call's place in a durable run (its id is then its place path). */
  constructor(run: RunContext, agentId: string, input: string, place?: LiveCallPlace) {
    this.runId = run.runId;
    this.callId = place === undefined ? newRunId() : place.callId;
    this.parentCallId = run.callId;
    this.agentId = agentId;
    this.scheduler = run.scheduler;
    this.startedAt = run.scheduler.now();
    // What the agent reports after its call ended (an agent that ignores its abort) is dropped, as its
    // chunks are: nothing is said of a node after its end.
    const scope = RunScope.under(run);
    this.scope = scope;
    this.child =
      place === undefined
        ? { runId: run.runId, callId: this.callId, parentCallId: run.callId, scheduler: run.scheduler, emit: scope.emit, pace: run.pace }
        : { runId: run.runId, callId: this.callId, parentCallId: run.callId, scheduler: run.scheduler, emit: scope.emit, pace: run.pace, journal: place.journal };
    // A long input (a chain hands the previous reply on) is not repeated: no event grows with a reply.
    if (fitsAsJson(input, MAX_TEXT_FIELD_LENGTH)) scope.emit({ type: 'call-start', runId: this.runId, callId: this.callId, parentCallId: this.parentCallId, at: this.startedAt, agentId, input });
    else scope.emit({ type: 'call-start', runId: this.runId, callId: this.callId, parentCallId: this.parentCallId, at: this.startedAt, agentId, input: '', inputOmitted: true });
  }

  delta(delta: string): void {
    if (this.scope.closed) return;
    const at = this.scheduler.now();
    if (delta.length <= MAX_DELTA_LENGTH) {
      this.scope.deliver({ type: 'text-delta', runId: this.runId, callId: this.callId, parentCallId: this.parentCallId, at, agentId: this.agentId, delta });
      return;
    }
    // A whole reply in one chunk: said in pieces, so no event is too long for a wire (the concatenation is the chunk).
    for (const piece of splitText(delta, MAX_DELTA_LENGTH)) {
      if (this.scope.closed) return;
      this.scope.deliver({ type: 'text-delta', runId: this.runId, callId: this.callId, parentCallId: this.parentCallId, at, agentId: this.agentId, delta: piece });
    }
  }

  end(): void {
    this.ended = true;
    const at = this.scheduler.now();
    this.scope.emit({ type: 'call-end', runId: this.runId, callId: this.callId, parentCallId: this.parentCallId, at, agentId: this.agentId, durationMs: at - this.startedAt });
    this.scope.close();
  }

  fail(error: unknown): void {
    if (this.ended) return;
    this.ended = true;
    const at = this.scheduler.now();
    this.scope.emit({ type: 'call-error', runId: this.runId, callId: this.callId, parentCallId: this.parentCallId, at, agentId: this.agentId, error: serializeError(error), durationMs: at - this.startedAt });
    this.scope.close();
  }
}
