import { firstValueFrom, first, throwError, timeout, type SchedulerLike } from 'rxjs';
import { answerInterrupt, InterruptNotFoundError, pendingInterrupts$ } from '@rxagents/core';
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
  constructor(private readonly settings: RunAnswersSettings) {}

  async answer(runId: string, interruptId: string, answer: unknown): Promise<void> {
    const { held, stored } = this.settings;
    if (typeof runId !== 'string' || typeof interruptId !== 'string' || runId === '' || interruptId === '') {
      throw new InterruptNotFoundError(String(runId), String(interruptId));
    }
    const open = held.openInterrupt(runId, interruptId);
    const log = held.runs.get(runId);
    if (open !== undefined && log !== undefined) {
      // A run given as events is held under the registry's id; its interrupts are answered under their own run's.
      if (!held.isDurable(log)) return answerInterrupt(open.runId, interruptId, answer);
      return this.whenOpen(open.runId, interruptId, answer);
    }
    if (stored === undefined || (log !== undefined && !held.isDurable(log))) throw new InterruptNotFoundError(runId, interruptId);
    // A durable run, not running here or not yet at its question again: its journal says whether the question waits.
    if (!(await stored.isOpenInJournal(runId, interruptId))) throw new InterruptNotFoundError(runId, interruptId);
    if (!held.runs.has(runId) && (await stored.resumeWithOutcome(runId)) === 'leased') throw new RunHeldElsewhereError(runId);
    if (!held.runs.has(runId)) throw new InterruptNotFoundError(runId, interruptId);
    return this.whenOpen(runId, interruptId, answer);
  }

  /** Answers once the interrupt is open in this process, or `InterruptNotFoundError` when it is not within `reopenTimeoutMs`. */
  private async whenOpen(runId: string, interruptId: string, answer: unknown): Promise<void> {
    const { reopenTimeoutMs, scheduler } = this.settings;
    const opened$ = pendingInterrupts$(runId).pipe(first((open) => open.some((event) => event.interruptId === interruptId)));
    const bounded$ = reopenTimeoutMs === Infinity ? opened$ : opened$.pipe(timeout({ first: reopenTimeoutMs, scheduler, with: () => throwError(() => new InterruptNotFoundError(runId, interruptId)) }));
    await firstValueFrom(bounded$);
    answerInterrupt(runId, interruptId, answer);
  }
}
