import { CoordinationError } from './CoordinationError';

/**
 * One rule an answer broke: where in the answer (a dotted path, empty for the whole answer) and the rule.
 *
 * @example
 * ```ts
 * import type { InterruptAnswerIssue } from '@rxagents/core';
 *
 * const issue: InterruptAnswerIssue = { path: 'approved', rule: 'Invalid input: expected boolean, received string' };
 * console.log(issue.path); // approved
 * ```
 */
export interface InterruptAnswerIssue {
  /** Where in the answer, for example `approved` or `items.2`; empty for the answer itself. */
  readonly path: string;
  /** What the answer's schema says there. */
  readonly rule: string;
}

/**
 * An answer to an interrupt did not fit the interrupt's schema (or was not JSON, or too long): the
 * interrupt stays open, waiting for a good answer.
 *
 * @remarks
 * Thrown to whoever answered, never to the run: the run keeps waiting. `issues` lists each broken rule,
 * without the value that broke it.
 *
 * @example
 * ```ts
 * import { InterruptAnswerError } from '@rxagents/core';
 *
 * const error = new InterruptAnswerError('run-1', 'ab12', [{ path: 'approved', rule: 'expected boolean' }]);
 * console.log(error.code, error.issues.length); // INTERRUPT_ANSWER_INVALID 1
 * ```
 */
export class InterruptAnswerError extends CoordinationError {
  /** The run of the interrupt. */
  readonly runId: string;
  /** The interrupt answered. */
  readonly interruptId: string;
  /** Every rule the answer broke. */
  readonly issues: readonly InterruptAnswerIssue[];

  constructor(runId: string, interruptId: string, issues: readonly InterruptAnswerIssue[]) {
    const shown = issues.slice(0, 10).map(({ path, rule }) => (path === '' ? rule : `${path}: ${rule}`));
    const more = issues.length > 10 ? ` (and ${issues.length - 10} more)` : '';
    super('INTERRUPT_ANSWER_INVALID', `The answer to interrupt "${interruptId}" of run "${runId}" is invalid: ${shown.join('; ')}${more}`, { context: { runId, interruptId } });
    this.runId = runId;
    this.interruptId = interruptId;
    this.issues = Object.freeze(issues.map((issue) => Object.freeze({ path: issue.path, rule: issue.rule })));
  }
}
