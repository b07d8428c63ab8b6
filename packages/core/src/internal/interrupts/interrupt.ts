import { Observable, type Subscription } from 'rxjs';
import { scheduleDelay } from '../../delay';
import { InterruptAnswerError, type InterruptAnswerIssue } from '../../errors/InterruptAnswerError';
import { InterruptNotFoundError } from '../../errors/InterruptNotFoundError';
import { InterruptTimeoutError } from '../../errors/InterruptTimeoutError';
import type { RunContext } from '../../events/RunContext';
import type { LiveInterruptPlace, RecordedInterruptEnd } from '../../events/RunJournal';
import type { RunEventOf } from '../../events/RunEvent';
import { MAX_TEXT_FIELD_LENGTH } from '../../limits';
import { abortError } from '../abortError';
import { answerAsJson as asJson } from './answerAsJson';
import { rebuildInterruptError } from './rebuildInterruptError';
import { interruptBoard, type OpenInterrupt } from './InterruptBoard';
import type { InterruptRequest } from './InterruptRequest';
import { InterruptTrace } from './InterruptTrace';

type Json = RunEventOf<'interrupt-end'>['answer'];

/** Reads a JSON answer as the asker's value, or says which rules it broke. */
export type ReadAnswer<T> = (answer: Json) => { readonly value: T } | { readonly issues: readonly InterruptAnswerIssue[] };

/** How an interrupt's wait ends when nobody answered in time. */
export interface InterruptTimeout {
  readonly ms: number;
  /** The answer a timeout stands for (a refusal); without it the wait fails with `InterruptTimeoutError`. */
  readonly answer: Json | undefined;
}

/**
 * An interrupt as a cold Observable: each subscription asks once (the `interrupt` event, the process's
 * board), then gives the answer and completes, or fails with a timeout; unsubscribing closes it.
 */
export function interrupt<T>(run: RunContext & { readonly callId: string }, request: InterruptRequest, read: ReadAnswer<T>, timeout: InterruptTimeout | undefined): Observable<T> {
  return new Observable<T>((subscriber) => {
    const journal = run.journal;
    let place: LiveInterruptPlace | undefined;
    if (journal !== undefined) {
      place = journal.host.enterInterrupt(journal, request, (end: RecordedInterruptEnd) => {
        if (subscriber.closed) return;
        // Said again under a node that runs again, so that node's tree is whole.
        const trace = end.resay === undefined ? undefined : new InterruptTrace(run, request, end.resay);
        trace?.say();
        if (end.hasAnswer) {
          const read$ = read(end.answer as Json);
          trace?.end(end.error === undefined, end.answer as Json, end.error === undefined ? undefined : rebuildInterruptError(end.error));
          if ('value' in read$) {
            subscriber.next(read$.value);
            subscriber.complete();
          } else subscriber.error(new InterruptAnswerError(run.runId, trace?.event.interruptId ?? '', read$.issues));
        } else if (end.error !== undefined && end.error.name !== 'AbortError') {
          const error = rebuildInterruptError(end.error);
          trace?.end(false, undefined, error);
          subscriber.error(error);
        }
        // A cancelled interrupt waits for the same cancellation, as a cancelled call does.
      });
      // Taken over by the run: answered from the journal at its turn, or held because the run stopped.
      if (place === undefined) return undefined;
    }
    const trace = new InterruptTrace(run, request, place);
    const { runId, interruptId } = trace.event;
    let timer: Subscription | undefined;
    const close = (): void => {
      interruptBoard.close(entry);
      timer?.unsubscribe();
    };
    const entry: OpenInterrupt = {
      event: trace.event,
      accept: (answer) => {
        if (trace.ended || subscriber.closed || answeredWhileSaying !== undefined) throw new InterruptNotFoundError(runId, interruptId);
        const json = asJson(answer);
        if (json === undefined) throw new InterruptAnswerError(runId, interruptId, [{ path: '', rule: `must be a JSON value of at most ${MAX_TEXT_FIELD_LENGTH} characters` }]);
        const read$ = read(json.value);
        if (!('value' in read$)) throw new InterruptAnswerError(runId, interruptId, read$.issues);
        close();
        const take = (): void => {
          trace.end(true, json.value, undefined);
          subscriber.next(read$.value);
          subscriber.complete();
        };
        // Answered by a reader of the `interrupt` event while it is being said (in a `map` or `tap`): the
        // end waits until the event has reached every reader, so no reader sees the end first.
        if (saying) answeredWhileSaying = take;
        else take();
      },
    };
    let saying = true;
    let answeredWhileSaying: (() => void) | undefined;
    // Open before it is said: whoever reads the event may answer it at once. A durable run lists it once
    // its journal holds it (see InterruptHold), so no id gets out that a crash would make unknown.
    interruptBoard.open(entry, place === undefined);
    trace.say();
    saying = false;
    if (answeredWhileSaying !== undefined) {
      answeredWhileSaying();
      return undefined;
    }
    if (timeout !== undefined && !trace.ended) {
      timer = scheduleDelay(run.scheduler, timeout.ms, () => {
        close();
        const error = new InterruptTimeoutError(runId, interruptId, timeout.ms);
        if (timeout.answer === undefined) {
          trace.end(false, undefined, error);
          subscriber.error(error);
          return;
        }
        trace.end(false, timeout.answer, error);
        const read$ = read(timeout.answer);
        if ('value' in read$) {
          subscriber.next(read$.value);
          subscriber.complete();
        } else subscriber.error(error);
      });
    }
    return () => {
      if (trace.ended) return;
      close();
      trace.end(false, undefined, abortError(`interrupt "${interruptId}" was cancelled before it was answered`));
    };
  });
}
