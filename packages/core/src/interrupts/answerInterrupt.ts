import * as z from 'zod';
import { interruptBoard } from '../internal/interrupts/InterruptBoard';
import { parseConfig } from '../parseConfig';

const idRule = () => z.string({ error: 'must be a non-empty string' }).min(1, 'must be a non-empty string');
const AnswerSchema = z.strictObject({ runId: idRule(), interruptId: idRule() });

/**
 * Answers an interrupt open in this process: the run that asked goes on with the answer.
 *
 * @remarks
 * The interrupt is found by its run and its id, both as its `interrupt` event says them. The answer is
 * checked against the interrupt's schema: one that does not fit (or is not JSON, or is longer than
 * `MAX_TEXT_FIELD_LENGTH` as JSON) throws `InterruptAnswerError` naming each broken rule, and the
 * interrupt keeps waiting. A good one closes the interrupt, journaled in a durable run, and the asker
 * gets it. For answers from outside the process (a page, another service) use a run registry's answer
 * route, which checks that the caller holds the run.
 *
 * @param runId - The run of the interrupt (its event's `runId`).
 * @param interruptId - The interrupt (its event's `interruptId`).
 * @param answer - The answer: for an approval an `ApprovalDecision`, for input what its schema accepts.
 * @throws `InterruptNotFoundError` when that run has no such interrupt open here (unknown, closed, or another run's).
 * @throws `InterruptAnswerError` when the answer does not fit the interrupt's schema.
 * @throws `ConfigError` when `runId` or `interruptId` is not a non-empty string.
 *
 * @example
 * ```ts
 * import { answerInterrupt, InterruptNotFoundError } from '@rxagents/core';
 *
 * try {
 *   answerInterrupt('run-1', 'no-such-interrupt', 'yes');
 * } catch (error) {
 *   console.log(error instanceof InterruptNotFoundError); // true
 * }
 * ```
 */
export function answerInterrupt(runId: string, interruptId: string, answer: unknown): void {
  if (typeof runId !== 'string' || runId === '' || typeof interruptId !== 'string' || interruptId === '') parseConfig(AnswerSchema, { runId, interruptId }, 'answerInterrupt');
  interruptBoard.find(runId, interruptId).accept(answer);
}
