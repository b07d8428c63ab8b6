import { asyncScheduler, type SchedulerLike, Subscription } from 'rxjs';
import * as z from 'zod';
import { answerInterrupt, configRules, InterruptNotFoundError, parseConfig, pendingInterrupts$, reportUnhandledError, type RunEventOf } from '@rxagents/core';

/**
 * Options of {@link scriptedPerson}.
 *
 * @example
 * ```ts
 * import type { ScriptedPersonOptions } from '@rxagents/testing';
 *
 * const options: ScriptedPersonOptions = { afterMs: 3 };
 * console.log(options.afterMs); // 3
 * ```
 */
export interface ScriptedPersonOptions {
  /** How long the person takes to answer each question, in ms on `scheduler`. Default 0 (at the next turn of the scheduler). */
  readonly afterMs?: number;
  /** The clock of `afterMs`. Default `asyncScheduler`, so `TestScheduler.run` virtualises it. */
  readonly scheduler?: SchedulerLike;
}

const ScriptedPersonSchema = z.strictObject({
  runId: configRules.nonEmptyString(),
  answer: configRules.function(),
  options: z.strictObject({ afterMs: configRules.delayMs().optional(), scheduler: configRules.scheduler().optional() }, { error: 'must be an object' }),
});

/**
 * A person for tests: answers every question of a run as it opens, with what `answer` makes of it.
 *
 * @remarks
 * Watches the run's open interrupts in this process (`pendingInterrupts$`) and answers each one once,
 * `afterMs` later on `scheduler`, through `answerInterrupt`, so a flow that waits for a person runs on
 * virtual time in a marble test. A question asked again after a resume (the same id) is answered again.
 * An answer the question's schema refuses is reported (`reportUnhandledError`) and the question stays
 * open, as it would for a real person; a question that closed before its answer was due is left alone. Unsubscribe the returned subscription to stop answering.
 *
 * @param runId - The run whose questions to answer.
 * @param answer - The answer to a question, given its `interrupt` event (an `ApprovalDecision` for an approval).
 * @param options - How long each answer takes, and on which clock.
 * @returns The subscription that answers; unsubscribe it to stop.
 * @throws `ConfigError` for a blank `runId`, an `answer` that is not a function or a bad option.
 *
 * @example
 * ```ts
 * import { lastValueFrom, toArray } from 'rxjs';
 * import { askForApproval, observeRun } from '@rxagents/core';
 * import { scriptedPerson } from '@rxagents/testing';
 *
 * const person = scriptedPerson('deploy-1', (question) => ({ approved: question.action === 'deploy' }));
 * const events = await lastValueFrom(observeRun('deploy', 'v2', (run) => askForApproval(run, 'deploy', { version: 2 }), { runId: 'deploy-1' }).pipe(toArray()));
 * person.unsubscribe();
 * console.log(events.at(-1)?.type); // run-end
 * ```
 */
export function scriptedPerson(runId: string, answer: (question: RunEventOf<'interrupt'>) => unknown, options: ScriptedPersonOptions = {}): Subscription {
  parseConfig(ScriptedPersonSchema, { runId, answer, options }, 'scriptedPerson');
  const { afterMs = 0, scheduler = asyncScheduler } = options;
  const answered = new Set<string>();
  const subscription = new Subscription();
  subscription.add(
    pendingInterrupts$(runId).subscribe((open) => {
      const now = new Set(open.map((question) => question.interruptId));
      // A question that closed and is asked again (a resumed run) is answered again.
      for (const id of answered) if (!now.has(id)) answered.delete(id);
      for (const question of open) {
        if (answered.has(question.interruptId)) continue;
        answered.add(question.interruptId);
        subscription.add(
          scheduler.schedule(() => {
            try {
              answerInterrupt(question.runId, question.interruptId, answer(question));
            } catch (error) {
              // Closed meanwhile (cancelled, timed out): nothing to answer, as for a person who came late.
              if (!(error instanceof InterruptNotFoundError)) reportUnhandledError(error);
            }
          }, afterMs),
        );
      }
    }),
  );
  return subscription;
}
