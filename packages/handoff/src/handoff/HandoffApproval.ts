import { map, mergeMap, type Observable, type ObservableInput, of, throwError } from 'rxjs';
import { askForApproval } from '@rxagents/core';
import { HandoffApprovalUnavailableError } from '../errors/HandoffApprovalUnavailableError';
import { HandoffRejectedError } from '../errors/HandoffRejectedError';
import { evaluateEnabled$, type HandoffEnabledContext } from './HandoffEnabled';

/**
 * What a `needsApproval` predicate is asked about: the handoff about to happen.
 *
 * @remarks
 * The same facts as {@link HandoffEnabledContext} (source, target, input, history, metadata, run), with
 * `handoffChain` the chain extended by the source (what the target would run under) and `arguments` the
 * tool arguments as the handoff's `inputSchema` read them, so a rule can depend on them (an amount).
 *
 * @example
 * ```ts
 * import type { HandoffApprovalContext } from '@rxagents/handoff';
 *
 * const bigRefunds = (context: HandoffApprovalContext): boolean => ((context.arguments as { amount?: number } | undefined)?.amount ?? 0) > 500;
 * ```
 */
export interface HandoffApprovalContext extends HandoffEnabledContext {
  /** The validated tool arguments, when the handoff has an `inputSchema`; else the raw ones, if any. */
  readonly arguments?: unknown;
}

/**
 * Whether a handoff needs a person's approval before it happens: a boolean, or a predicate answering one
 * now or later (a Promise, or an Observable whose first value counts; one that completes empty counts as `false`).
 *
 * @example
 * ```ts
 * import type { HandoffNeedsApproval } from '@rxagents/handoff';
 *
 * const outsideOfficeHours: HandoffNeedsApproval = ({ metadata }) => metadata.officeOpen !== true;
 * ```
 */
export type HandoffNeedsApproval = boolean | ((context: HandoffApprovalContext) => boolean | ObservableInput<boolean>);

/** What the person is shown, as the approval's `args`: who hands what to whom. */
interface HandoffApprovalArgs {
  readonly from: string;
  readonly to: string;
  readonly input: string;
  readonly arguments?: unknown;
}

/** @internal What {@link approveHandoff$} needs. */
export interface HandoffApprovalRequest {
  readonly setting: HandoffNeedsApproval;
  readonly context: HandoffApprovalContext;
  readonly toolName: string;
  /** In ms on the run's scheduler; `undefined` waits for ever. */
  readonly timeout: number | undefined;
}

/**
 * @internal Emits once when the handoff may go on: no approval needed, or a person approved it in
 * `context.run`. Errors with {@link HandoffRejectedError} when refused (or not answered within `timeout`),
 * {@link HandoffApprovalUnavailableError} when an approval is needed and there is no run to ask in, or what
 * the predicate threw (a `HandoffContractError` when it answered no boolean).
 */
export function approveHandoff$(request: HandoffApprovalRequest): Observable<unknown> {
  const { setting, context, toolName, timeout } = request;
  const sides = { sourceAgentId: context.source.id, targetAgentId: context.target.id };
  return evaluateEnabled$(setting, context, `the needsApproval of ${toolName}`).pipe(
    mergeMap((needed) => {
      if (!needed) return of(true);
      const { run } = context;
      if (run === undefined) return throwError(() => new HandoffApprovalUnavailableError(toolName, sides));
      const args: HandoffApprovalArgs = {
        from: context.source.id,
        to: context.target.id,
        input: context.input,
        ...(context.arguments === undefined ? {} : { arguments: context.arguments }),
      };
      const question = `Allow ${context.source.id} to hand off to ${context.target.id}?`;
      return askForApproval(run, toolName, args, timeout === undefined ? { question } : { question, timeout, onTimeout: 'refuse' }).pipe(
        map((decision) => {
          if (!decision.approved) throw new HandoffRejectedError(toolName, decision.reason, sides);
          return true;
        }),
      );
    }),
  );
}
