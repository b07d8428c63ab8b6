import { concatMap, type OperatorFunction } from 'rxjs';
import { z } from 'zod';
import { configRules, parseConfig, type Agent } from '@rxagents/core';
import { DefaultHandoff, HandoffExecuteOptionsSchema } from './DefaultHandoff';
import type { HandoffContext } from './HandoffContext';
import type { HandoffResult } from './HandoffResult';
import type { HandoffExecuteOptions, HandoffSource, HandoffStrategy } from './HandoffStrategy';

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
});

/** The sender the operators use when none is given. */
const CALLER: HandoffSource = Object.freeze({ id: 'caller' });

/**
 * Hands each incoming context to `to`, one at a time, and emits each {@link HandoffResult}.
 *
 * @remarks
 * Built on `concatMap`: contexts are handed off in arrival order and results come out in the same order;
 * a context arriving while one is running waits. Failures are results, so the stream never errors.
 * Unsubscribing aborts the running receiver.
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
  const { from, strategy, execute } = splitOperatorOptions(options);
  return concatMap((context) => strategy.execute$(from, to, context, execute));
}

/** Splits operator options into sender, strategy and per-call options (shared by the handoff operators). */
export function splitOperatorOptions(options: HandoffOperatorOptions): {
  readonly from: HandoffSource;
  readonly strategy: HandoffStrategy;
  readonly execute: HandoffExecuteOptions | undefined;
} {
  parseConfig(HandoffOperatorOptionsSchema, options, 'handoff operator options');
  const { from = CALLER, strategy = new DefaultHandoff(), ...execute } = options;
  return { from, strategy, execute: Object.keys(execute).length === 0 ? undefined : execute };
}
