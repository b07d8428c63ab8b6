import type { Observable } from 'rxjs';
import * as z from 'zod';
import * as configRules from '../configRules';
import type { RunContext } from '../events/RunContext';
import type { RunEventOf } from '../events/RunEvent';
import { checkAsker } from '../internal/interrupts/checkAsker';
import { interrupt } from '../internal/interrupts/interrupt';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../internal/jsonDepth';
import { parseConfig } from '../parseConfig';
import { jsonSchemaOf, readWithSchema } from './readWithSchema';

/**
 * A person's answer to an approval: whether the action may run, and why not.
 *
 * @example
 * ```ts
 * import type { ApprovalDecision } from '@rxagents/core';
 *
 * const no: ApprovalDecision = { approved: false, reason: 'Refunds over 500 need a manager' };
 * console.log(no.approved); // false
 * ```
 */
export interface ApprovalDecision {
  readonly approved: boolean;
  /** Why (usually given with a refusal); at most 10,000 characters. */
  readonly reason?: string | undefined;
}

/**
 * The zod schema of an {@link ApprovalDecision}: what an answer to an approval must be.
 *
 * @example
 * ```ts
 * import { ApprovalDecisionSchema } from '@rxagents/core';
 *
 * console.log(ApprovalDecisionSchema.safeParse({ approved: 'yes' }).success); // false
 * ```
 */
export const ApprovalDecisionSchema: z.ZodType<ApprovalDecision> = z.strictObject({
  approved: z.boolean(),
  reason: z.string().max(10_000).optional(),
});

/**
 * Options of {@link askForApproval}.
 *
 * @example
 * ```ts
 * import type { AskForApprovalOptions } from '@rxagents/core';
 *
 * const options: AskForApprovalOptions = { question: 'Refund 120 EUR to Ada?', timeout: 3_600_000, onTimeout: 'refuse' };
 * console.log(options.onTimeout); // refuse
 * ```
 */
export interface AskForApprovalOptions {
  /** What the person reads. Default: `Allow <action>?`. */
  readonly question?: string;
  /** How long to wait, in ms on the run's scheduler; `Infinity` (the default) waits for ever. */
  readonly timeout?: number;
  /**
   * What a timeout means: `'error'` (the default) fails the wait with `InterruptTimeoutError`;
   * `'refuse'` answers `{ approved: false, reason: 'Not answered in time' }`, so the action does not run
   * and the run goes on.
   */
  readonly onTimeout?: 'error' | 'refuse';
}

const argsRule = z.custom<unknown>((value) => {
  if (nestsDeeperThan(value, MAX_JSON_DEPTH)) return false;
  try {
    return typeof JSON.stringify(value) === 'string';
  } catch {
    return false;
  }
}, { error: 'must be a JSON value' });

const AskForApprovalSchema = z.strictObject({
  action: configRules.nonEmptyString(),
  args: argsRule,
  options: z.strictObject(
    {
      question: z.string({ error: 'must be a string' }).optional(),
      timeout: configRules.timeoutMs().optional(),
      onTimeout: z.enum(['error', 'refuse'], { error: "must be 'error' or 'refuse'" }).optional(),
    },
    { error: 'must be an object' },
  ),
});

const APPROVAL_JSON_SCHEMA = jsonSchemaOf(ApprovalDecisionSchema, 'askForApproval');
const REFUSED_IN_TIME = { approved: false, reason: 'Not answered in time' };

/**
 * Asks a person to approve a named action with its arguments, from inside a run, and waits for the
 * decision: an approval interrupt.
 *
 * @remarks
 * Works as {@link askForInput} does (an `interrupt` event, here with `kind: 'approval'`, the `action`
 * and its `args`; answered through {@link answerInterrupt}; journaled in a durable run), with the answer
 * fixed to an {@link ApprovalDecision}. Asking does not run anything: the caller runs the action when
 * `approved` is true. In a durable run, an approval the journal holds is answered from it only for the
 * same action and the same arguments: asked again with other arguments, it is a new question (or, once
 * answered, a `RunDivergenceError`), so an approval never covers arguments the person did not see.
 *
 * @param run - The run context to ask in (an agent's `ChatOptions.run`).
 * @param action - What would run, for example a tool's name (`refund`).
 * @param args - Its arguments: any JSON value, shown to the person.
 * @param options - The question, a timeout and what a timeout means.
 * @returns The decision, then completion.
 * @throws `ConfigError` at once when `run` is missing or not a node's run context, `action` is blank, `args` is not
 *   JSON, or an option is invalid.
 *
 * @example
 * ```ts
 * import { lastValueFrom } from 'rxjs';
 * import { answerInterrupt, askForApproval, defineAgent, invoke$, observeRun } from '@rxagents/core';
 *
 * const cashier = defineAgent('cashier', async (input, { run }) => {
 *   const decision = await lastValueFrom(askForApproval(run, 'refund', { customer: 'Ada', amount: 120 }));
 *   return decision.approved ? 'Refunded 120' : `No refund: ${decision.reason ?? 'refused'}`;
 * });
 * observeRun('refund', 'Ada', (run) => invoke$(cashier, 'Ada', { run })).subscribe((event) => {
 *   if (event.type === 'interrupt') answerInterrupt(event.runId, event.interruptId, { approved: true });
 *   if (event.type === 'run-end' && event.parentCallId === null) console.log(event.output); // Refunded 120
 * });
 * ```
 */
export function askForApproval(run: RunContext | undefined, action: string, args: unknown, options: AskForApprovalOptions = {}): Observable<ApprovalDecision> {
  checkAsker(run, 'askForApproval');
  const { question, timeout, onTimeout } = parseConfig(AskForApprovalSchema, { action, args, options }, 'askForApproval').options;
  const json = JSON.parse(JSON.stringify(args) ?? 'null') as RunEventOf<'interrupt'>['schema'];
  const request = { kind: 'approval' as const, question: question ?? `Allow ${action}?`, schema: APPROVAL_JSON_SCHEMA, action, args: json };
  const limited = timeout !== undefined && timeout !== Infinity;
  return interrupt(run, request, readWithSchema(ApprovalDecisionSchema), limited ? { ms: timeout, answer: onTimeout === 'refuse' ? REFUSED_IN_TIME : undefined } : undefined);
}
