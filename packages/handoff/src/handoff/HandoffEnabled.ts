import { defaultIfEmpty, defer, from, map, type Observable, type ObservableInput, of, take } from 'rxjs';
import { preview, type Agent, type Message, type RunContext } from '@rxagents/core';
import { HandoffContractError } from '../errors/HandoffContractError';
import type { HandoffSource } from '../strategy/HandoffStrategy';

/**
 * What an `isEnabled` predicate is asked about: who would hand off, to whom, and the call it would
 * happen in (its input, history, metadata, the chain in scope and the run, if any).
 *
 * @remarks
 * The OpenAI Agents SDK passes `{ runContext, agent }`; here the run's context is the call's own:
 * `metadata` is what the application passed with the call (`ChatOptions.metadata`, where per-user data
 * such as a tier or feature flags lives), `run` the run it reports into, `source` the agent that offers
 * the handoff (the SDK's `agent`) and `target` the handoff's own agent.
 *
 * @example
 * ```ts
 * import type { HandoffEnabledContext } from '@rxagents/handoff';
 *
 * const vipOnly = (context: HandoffEnabledContext): boolean => context.metadata.tier === 'vip';
 * ```
 */
export interface HandoffEnabledContext {
  /** The agent that would hand off (a routing agent). */
  readonly source: HandoffSource;
  /** The handoff's target. */
  readonly target: Agent;
  /** What the source was asked. */
  readonly input: string;
  /** The history of the call (`ChatOptions.context`). */
  readonly messages: readonly Message[];
  /** The call's metadata (`ChatOptions.metadata`): the application's per-call data. */
  readonly metadata: Readonly<Record<string, unknown>>;
  /** The handoff chain in scope where the source was called. */
  readonly handoffChain: readonly string[];
  /** The run the call reports into, when there is one. */
  readonly run: RunContext | undefined;
}

/**
 * Whether a handoff is offered right now: a boolean, or a predicate answering a boolean now or later (a
 * Promise, or an Observable whose first value counts; one that completes empty counts as `false`).
 *
 * @example
 * ```ts
 * import type { HandoffEnabled } from '@rxagents/handoff';
 *
 * const duringOfficeHours: HandoffEnabled = async (context) => context.metadata.officeOpen === true;
 * ```
 */
export type HandoffEnabled = boolean | ((context: HandoffEnabledContext) => boolean | ObservableInput<boolean>);

/**
 * Evaluates an `isEnabled` setting as one boolean: at once for a boolean or a predicate answering one,
 * through `from()` for a Promise or an Observable (so an Observable answer keeps virtual time). Errors with
 * what the predicate threw or errored with, or a `HandoffContractError` naming `culprit` when it answered
 * anything but a boolean.
 */
export function evaluateEnabled$(setting: HandoffEnabled, context: HandoffEnabledContext, culprit: string): Observable<boolean> {
  if (typeof setting === 'boolean') return of(setting);
  return defer(() => {
    const answer: unknown = setting(context);
    if (typeof answer === 'boolean') return of(answer);
    let answer$: Observable<unknown>;
    try {
      // A string is iterable, but never a meant answer.
      if (typeof answer !== 'object' || answer === null) throw new TypeError('not an ObservableInput');
      answer$ = from(answer as ObservableInput<unknown>);
    } catch {
      throw notBoolean(culprit, answer);
    }
    return answer$.pipe(
      take(1),
      defaultIfEmpty(false),
      map((value) => {
        if (typeof value !== 'boolean') throw notBoolean(culprit, value);
        return value;
      }),
    );
  });
}

function notBoolean(culprit: string, value: unknown): HandoffContractError {
  return new HandoffContractError(culprit, `answered ${preview(value)}; it must answer a boolean (or a Promise or Observable of one)`, value);
}
