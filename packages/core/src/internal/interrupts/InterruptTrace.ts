import { newRunId } from '../../events/ids';
import type { RunContext } from '../../events/RunContext';
import type { RunEventOf } from '../../events/RunEvent';
import type { LiveInterruptPlace } from '../../events/RunJournal';
import { serializeError } from '../../events/SerializedError';
import { RunScope } from '../RunScope';
import type { InterruptRequest } from './InterruptRequest';

/** One interrupt's node in a run: `interrupt` when asked ({@link InterruptTrace.say}), `interrupt-end` when it closes. */
export class InterruptTrace {
  readonly event: RunEventOf<'interrupt'>;
  readonly scope: RunScope;
  ended = false;

  /** `place`: its place in a durable run (its node id is then its place path, its id the recorded one when asked again). */
  constructor(
    private readonly run: RunContext & { readonly callId: string },
    request: InterruptRequest,
    place?: LiveInterruptPlace,
  ) {
    this.scope = RunScope.under(run);
    const event: RunEventOf<'interrupt'> = {
      type: 'interrupt',
      runId: run.runId,
      callId: place?.callId ?? newRunId(),
      parentCallId: run.callId,
      at: run.scheduler.now(),
      interruptId: place?.interruptId ?? newRunId(),
      kind: request.kind,
      question: request.question,
      schema: request.schema,
    };
    if (request.action !== undefined) event.action = request.action;
    if (request.args !== undefined) event.args = request.args;
    this.event = Object.freeze(event);
  }

  /** Says the `interrupt` event (once the interrupt can take an answer: a reader may answer it at once). */
  say(): void {
    this.scope.emit(this.event);
  }

  /** Closes the interrupt: with the answer it was given (`answered`), the answer it stands for (a refusal by timeout), or an error. */
  end(answered: boolean, answer: RunEventOf<'interrupt-end'>['answer'], error: unknown): void {
    if (this.ended) return;
    this.ended = true;
    const { runId, callId, parentCallId, interruptId } = this.event;
    const at = this.run.scheduler.now();
    const event: RunEventOf<'interrupt-end'> = { type: 'interrupt-end', runId, callId, parentCallId, at, interruptId, answered, durationMs: Math.max(0, at - this.event.at) };
    if (answer !== undefined) event.answer = answer;
    if (error !== undefined) event.error = serializeError(error);
    this.scope.emit(event);
    this.scope.close();
  }
}
