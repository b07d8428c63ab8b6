import { filter, firstValueFrom, first, throwError, timeout, type SchedulerLike } from 'rxjs';
import { answerInterrupt, InterruptNotFoundError, pendingInterrupts, pendingInterrupts$ } from '@rxagents/core';
import { RunHeldElsewhereError } from '../errors/RunHeldElsewhereError';
import type { HeldRuns } from './HeldRuns';
import type { StoredRuns } from './StoredRuns';

/** What {@link RunAnswers} is made with (the registry's parts and options). */
export interface RunAnswersSettings {
  readonly held: HeldRuns;
  readonly stored: StoredRuns | undefined;
  readonly reopenTimeoutMs: number;
  readonly scheduler: SchedulerLike;
}

/**
 * Answers to the interrupts of a registry's runs: found through the run the registry holds under the id
 * given (its capability), or, for a durable run no process runs, through its journal and a resume.
 */
export class RunAnswers {
  /** The questions, by run, that an answer waits for the run to ask again: one answer each at a time. */
  private readonly waiting = new Map<string, Set<string>>();

  constructor(private readonly settings: RunAnswersSettings) {}

  async answer(runId: string, interruptId: string, answer: unknown): Promise<void> {
    const { held, stored } = this.settings;
    if (typeof runId !== 'string' || typeof interruptId !== 'string' || runId === '' || interruptId === '') {
      throw new InterruptNotFoundError(String(runId), String(interruptId));
    }
    // Asked again under a new id by a run resumed after a stop: the old id answers the new question.
    const questions = stored?.questionsHeld(runId);
    const current = questions?.currentId(interruptId) ?? interruptId;
    const open = held.openInterrupt(runId, current);
    const log = held.runs.get(runId);
    if (open !== undefined && log !== undefined) {
      // A run given as events is held under the registry's id; its interrupts are answered under their own run's.
      if (!held.isDurable(log)) return answerInterrupt(open.runId, current, answer);
      return this.whenOpen(open.runId, interruptId, answer);
    }
    if (stored === undefined || (log !== undefined && !held.isDurable(log))) throw new InterruptNotFoundError(runId, interruptId);
    // A durable run, not running here or not yet at its question again: what it asked here, or else its
    // journal, says whether the question waits.
    if (questions?.asks(current) !== true && !(await stored.isOpenInJournal(runId, current))) throw new InterruptNotFoundError(runId, interruptId);
    // Being resumed (it stopped here short of its end, or a viewer asked for it), or to be resumed now.
    const resuming = stored.resumingNow(runId) ?? (held.runs.has(runId) ? undefined : stored.resumeWithOutcome(runId));
    const outcome = resuming === undefined ? undefined : await resuming;
    if (typeof outcome === 'object') throw new RunHeldElsewhereError(runId, outcome.leased.lapsesInMs);
    if (!held.runs.has(runId)) throw new InterruptNotFoundError(runId, interruptId);
    return this.whenOpen(runId, interruptId, answer);
  }

  /**
   * Answers once the interrupt is open in this process (under its id, or the one the run asked it again
   * under), or `InterruptNotFoundError` when it is not within `reopenTimeoutMs`. One answer per question
   * waits; another one meanwhile is refused as an answer to a question being answered.
   */
  private async whenOpen(runId: string, interruptId: string, answer: unknown): Promise<void> {
    const { reopenTimeoutMs, scheduler, stored } = this.settings;
    const currentId = (): string => stored?.questionsHeld(runId)?.currentId(interruptId) ?? interruptId;
    if (pendingInterrupts(runId).some((event) => event.interruptId === currentId())) return answerInterrupt(runId, currentId(), answer);
    let waiting = this.waiting.get(runId);
    if (waiting?.has(interruptId) === true) throw new InterruptNotFoundError(runId, interruptId);
    if (waiting === undefined) this.waiting.set(runId, (waiting = new Set()));
    waiting.add(interruptId);
    try {
      const opened$ = pendingInterrupts$(runId).pipe(
        filter((open) => open.some((event) => event.interruptId === currentId())),
        first(),
      );
      const bounded$ = reopenTimeoutMs === Infinity ? opened$ : opened$.pipe(timeout({ first: reopenTimeoutMs, scheduler, with: () => throwError(() => new InterruptNotFoundError(runId, interruptId)) }));
      await firstValueFrom(bounded$);
    } finally {
      waiting.delete(interruptId);
      if (waiting.size === 0 && this.waiting.get(runId) === waiting) this.waiting.delete(runId);
    }
    answerInterrupt(runId, currentId(), answer);
  }
}
