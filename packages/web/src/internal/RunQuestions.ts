import { Observable, type MonoTypeOperatorFunction } from 'rxjs';
import { answerInterrupt, type RunEvent, type RunEventOf } from '@rxagents/core';
import type { TrackedRunStore } from './TrackedRunStore';

/**
 * The stops of a durable run short of its end that running it again can get past: its lease lapsed (a
 * stalled event loop, a late renewal) or its store failed once. A divergence or a damaged journal would
 * stop it again at the same place, so such a run ends as it stopped.
 */
const RESUMABLE_STOPS: ReadonlySet<string> = new Set(['RUN_LEASE_LOST', 'RUN_STORE_FAILED']);

/** The most resumes in a row after which the run journaled nothing of its own (a store that keeps failing). */
const MAX_IDLE_RESUMES = 3;

/** A question the run asked that its journal does not show closed yet, and the attempt that asked it. */
interface Asked {
  readonly event: RunEventOf<'interrupt'>;
  readonly attempt: number;
}

/** The answer of an `interrupt-end` (a JSON value). */
type Answer = Exclude<RunEventOf<'interrupt-end'>['answer'], undefined>;

/**
 * What one durable run of a registry asked and was answered, across its attempts in this process: so
 * that a stop short of its end (its lease lost in a stall) is resumed at once, and the resumed run gets,
 * at its question, the answer the stopped one took but could not journal.
 *
 * @remarks
 * Everything here is bounded by the run's own questions: a question is kept until its journal shows it
 * closed, an answer until its `interrupt-end` is journaled, a former id until the run ends.
 */
export class RunQuestions {
  /** Whether the attempt watched last stopped short of the run's end, to be resumed. */
  stopped = false;
  private readonly asked = new Map<string, Asked>();
  /** Answers the run took and whose `interrupt-end` the store does not hold yet, by interrupt id. */
  private readonly kept = new Map<string, Answer>();
  /** The id a question asked before a stop was asked again under, when the resumed run gave it a new one. */
  private readonly renamed = new Map<string, string>();
  private attempt = 0;
  private idleResumes = 0;
  /** Whether the current attempt gave an event of its own (not one read back from the journal): only then does a journaled batch count as progress. */
  private live = false;

  constructor(private readonly runId: string) {}

  /**
   * The events of one attempt of the run: passed on, except the `run-end` of a stop short of the run's
   * end that a resume can get past (the registry resumes the run instead of ending it); then `stopped`
   * is `true`.
   */
  watch(tracked: TrackedRunStore): MonoTypeOperatorFunction<RunEvent> {
    const attempt = ++this.attempt;
    this.live = false;
    this.stopped = false;
    tracked.took = (events) => this.journaled(events);
    return (source) =>
      new Observable<RunEvent>((subscriber) => {
        let position = 0;
        /** How many records the journal held when the attempt began saying its events: those it read back. */
        let readBack: number | undefined;
        return source.subscribe({
          next: (event) => {
            // A resumed run says its journal first, in one go, before anything of its own reaches the
            // store; a durable run's new question is said only once journaled, so the store's count at
            // that moment would take it for one read back.
            readBack ??= tracked.journaled;
            const live = position++ >= readBack;
            if (event.type === 'run-end' && event.parentCallId === null && !tracked.rootEnded && this.mayResume(event)) {
              this.stopped = true;
              return;
            }
            if (live) this.live = true;
            this.saw(event, live, attempt);
            subscriber.next(event);
          },
          error: (error: unknown) => subscriber.error(error),
          complete: () => subscriber.complete(),
        });
      });
  }

  /** The id a question is asked under now: its own, or the one the resumed run asked it again under. */
  currentId(interruptId: string): string {
    return this.renamed.get(interruptId) ?? interruptId;
  }

  /** Whether the run asked `interruptId` and its journal does not show it closed. */
  asks(interruptId: string): boolean {
    return this.asked.has(this.currentId(interruptId));
  }

  /** The questions the run asked and that wait for an answer, oldest first (for `pending` between a stop and its resume). */
  waiting(): readonly RunEventOf<'interrupt'>[] {
    return [...this.asked.values()].filter(({ event }) => !this.kept.has(event.interruptId)).map(({ event }) => event);
  }

  private mayResume(event: RunEventOf<'run-end'>): boolean {
    const code = event.error?.code;
    if (code === undefined || !RESUMABLE_STOPS.has(code)) return false;
    this.idleResumes++;
    return this.idleResumes <= MAX_IDLE_RESUMES;
  }

  private saw(event: RunEvent, live: boolean, attempt: number): void {
    if (event.type === 'interrupt') {
      this.asked.set(event.interruptId, { event, attempt });
      if (live) this.askedAgain(event, attempt);
    } else if (event.type === 'interrupt-end') {
      if (!live) this.closed(event);
      // Kept until the store holds it: a stop before then asks the question again, and this answers it.
      else if (event.answered && event.answer !== undefined && this.asked.has(event.interruptId)) this.kept.set(event.interruptId, event.answer);
    }
  }

  /**
   * A question asked live: answered at once with the answer a stopped attempt took for it (under its id,
   * or under the id a stopped attempt asked it under at the same place, which then names this one).
   */
  private askedAgain(event: RunEventOf<'interrupt'>, attempt: number): void {
    const { interruptId } = event;
    let answer = this.kept.get(interruptId);
    const former = this.formerOf(event, attempt);
    if (former !== undefined) {
      this.renamed.set(former, interruptId);
      for (const [old, now] of this.renamed) if (now === former) this.renamed.set(old, interruptId);
      answer ??= this.kept.get(former);
      this.kept.delete(former);
      this.asked.delete(former);
    }
    if (answer === undefined) return;
    try {
      // While its event is being said, the interrupt takes an answer and ends once every reader saw it asked.
      answerInterrupt(this.runId, interruptId, answer);
    } catch {
      // The question changed and the answer does not fit it any more: it waits for the person's answer.
    }
  }

  /** A question a former attempt asked at the same place that its journal never held (so it is asked under a new id now). */
  private formerOf(event: RunEventOf<'interrupt'>, attempt: number): string | undefined {
    const place = placeOf(event.callId);
    for (const [id, asked] of this.asked) {
      if (asked.attempt >= attempt || id === event.interruptId) continue;
      const before = asked.event;
      if (placeOf(before.callId) === place && before.kind === event.kind && before.question === event.question) return id;
    }
    return undefined;
  }

  /** Events the store took: a question answered there needs nothing kept; the run made progress. */
  private journaled(events: readonly RunEvent[]): void {
    if (this.live && events.length > 0) this.idleResumes = 0;
    for (const event of events) if (event.type === 'interrupt-end') this.closed(event);
  }

  /**
   * A question the journal shows closed. Closed with its interrupted call, it still waits: the call asks
   * it again when it runs again, and an answer kept for it applies then. Answered, nothing is kept for it.
   */
  private closed(event: RunEventOf<'interrupt-end'>): void {
    if (closedByInterruption(event)) return;
    const { interruptId } = event;
    this.asked.delete(interruptId);
    if (!event.answered) return;
    this.kept.delete(interruptId);
    for (const [old, now] of this.renamed) if (now === interruptId) this.renamed.delete(old);
  }
}

/** A node's place: its id without its attempts (`run/1#2/0` is at `run/1/0`), as the journal keys it. */
function placeOf(callId: string): string {
  return callId.replace(/#\d+/g, '');
}

/** Whether an `interrupt-end` closed its question only because the call that asked it was interrupted (its process stopped): asked again when the call runs again. */
export function closedByInterruption(event: RunEventOf<'interrupt-end'>): boolean {
  return !event.answered && event.error?.code === 'CALL_INTERRUPTED';
}
