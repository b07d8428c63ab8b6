import { asyncScheduler, catchError, defaultIfEmpty, defer, mergeMap, type Observable, of, type OperatorFunction, take } from 'rxjs';
import { z } from 'zod';
import { ConfigError, configRules, parseConfig, type Agent } from '@rxagents/core';
import { DefaultHandoff, HandoffExecuteOptionsSchema } from '../strategy/DefaultHandoff';
import { HandoffContractError } from '../errors/HandoffContractError';
import { HandoffContext } from '../context/HandoffContext';
import type { HandoffResult } from '../strategy/HandoffResult';
import type { HandoffExecuteOptions, HandoffSource, HandoffStrategy } from '../strategy/HandoffStrategy';
import { failedHandoff } from '../internal/failedCall';
import { checkHandoffCall, isAgent } from '../internal/rules';

/**
 * Options of the handoff operators ({@link handoffTo}, {@link handoffThrough}, {@link routeHandoff}).
 *
 * @example
 * ```ts
 * import { DefaultHandoff, type HandoffOperatorOptions } from '@rxagents/handoff';
 *
 * const options: HandoffOperatorOptions = { from: { id: 'intake' }, strategy: new DefaultHandoff(), timeout: 30_000 };
 * ```
 */
export interface HandoffOperatorOptions extends HandoffExecuteOptions {
  /** The sender. Defaults to `{ id: 'caller' }`. */
  readonly from?: HandoffSource;
  /** How each handoff is made. Defaults to a new {@link DefaultHandoff}. */
  readonly strategy?: HandoffStrategy;
  /**
   * How many contexts are handed off at once. Defaults to 1: one at a time, results in the order of the
   * contexts (`concatMap`). Above 1 the operator is a `mergeMap` with that concurrency and results come in
   * the order the handoffs finish; `Infinity` starts every context at once.
   */
  readonly concurrency?: number;
}

/**
 * The zod schema of {@link HandoffOperatorOptions} (strict: an unknown key is a `ConfigError` naming it).
 *
 * @example
 * ```ts
 * import { HandoffOperatorOptionsSchema } from '@rxagents/handoff';
 *
 * console.log(HandoffOperatorOptionsSchema.safeParse({ timout: 5 }).success); // false
 * ```
 */
export const HandoffOperatorOptionsSchema = HandoffExecuteOptionsSchema.extend({
  from: z.looseObject({ id: configRules.id() }, { error: 'must be an object with a non-blank id' }).optional(),
  strategy: z
    .custom<HandoffStrategy>((value) => typeof value === 'object' && value !== null && typeof (value as HandoffStrategy).execute$ === 'function', {
      error: 'must be a HandoffStrategy (an object with an execute$ function)',
    })
    .optional(),
  concurrency: z.union([configRules.positiveInt(), z.literal(Infinity)], { error: 'must be a positive integer or Infinity' }).optional(),
});

/** The sender the operators use when none is given. */
const CALLER: HandoffSource = Object.freeze({ id: 'caller' });

/**
 * Hands each incoming context to `to` and emits each {@link HandoffResult}.
 *
 * @remarks
 * By default one context at a time (`concatMap`): contexts are handed off in arrival order and results
 * come out in the same order; a context arriving while one is running waits. With `concurrency` above 1
 * (`mergeMap`), that many handoffs run at once and results come out as they end. Failures are results,
 * so the stream never errors. Unsubscribing aborts every running receiver. A strategy's first result is
 * its result: the operator unsubscribes from it there, as a `HandoffChain` and a `ConditionalHandoff` do.
 * A strategy of your own is held to the same contract as there: one that throws or errors gives a failure
 * result carrying that error, one that completes without a result a failure with a `HandoffContractError`.
 * Only an item that is no {@link HandoffContext} errors the stream, with a `ConfigError`.
 *
 * @example
 * ```ts
 * import { from } from 'rxjs';
 * import { defineAgent } from '@rxagents/core';
 * import { HandoffContext, handoffTo } from '@rxagents/handoff';
 *
 * const billing = defineAgent('billing', async () => 'paid');
 * const contexts$ = from([HandoffContext.of('t-1'), HandoffContext.of('t-2')]);
 * contexts$.pipe(handoffTo(billing, { from: { id: 'intake' } })).subscribe((r) => console.log(r.toAgentId, r.output));
 * ```
 */
export function handoffTo(to: Agent, options: HandoffOperatorOptions = {}): OperatorFunction<HandoffContext, HandoffResult> {
  // Refused when the operator is built, not when the first context arrives (perhaps minutes later).
  if (!isAgent(to)) throw new ConfigError('handoffTo', [{ path: 'to', rule: 'must be an agent (an object with a non-blank id and a chat function)', received: to }]);
  const { from, strategy, execute, concurrency } = splitOperatorOptions(options);
  // mergeMap at concurrency 1 is concatMap. A strategy's first result is its result, as in a chain or a
  // router: a strategy of one's own that does not complete after it must not hold up the next context.
  return mergeMap((context) => {
    checkHandoffCall('handoffTo', from, to, context, (value) => value instanceof HandoffContext);
    return heldToContract(strategy, from, to, context, execute);
  }, concurrency);
}

/** One handoff by a strategy, held to its contract: its first result; a throw, an error or no result is a failure result. */
function heldToContract(strategy: HandoffStrategy, from: HandoffSource, to: Agent, context: HandoffContext, execute: HandoffExecuteOptions | undefined): Observable<HandoffResult> {
  const scheduler = execute?.scheduler ?? asyncScheduler;
  const start = scheduler.now();
  const failure = (error: unknown): Observable<HandoffResult> => of(failedHandoff(from.id, to.id, context, error, start, scheduler.now() - start));
  return defer(() => strategy.execute$(from, to, context, execute)).pipe(
    take(1),
    catchError(failure),
    defaultIfEmpty(undefined),
    mergeMap((result) => (result === undefined ? failure(new HandoffContractError(`the strategy handing off to "${to.id}"`, 'completed without a result', undefined)) : of(result))),
  );
}

/** Splits operator options into sender, strategy and per-call options (shared by the handoff operators). */
export function splitOperatorOptions(options: HandoffOperatorOptions): {
  readonly from: HandoffSource;
  readonly strategy: HandoffStrategy;
  readonly execute: HandoffExecuteOptions | undefined;
  readonly concurrency: number;
} {
  parseConfig(HandoffOperatorOptionsSchema, options, 'handoff operator options');
  const { from = CALLER, strategy = new DefaultHandoff(), concurrency = 1, ...execute } = options;
  return { from, strategy, concurrency, execute: Object.keys(execute).length === 0 ? undefined : execute };
}
